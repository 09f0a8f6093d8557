/* Stand-in for libiberty's include/ansidecl.h (part of perfdata, MIT OR Apache-2.0).
   cp-demangle.c includes it but, compiled as perfdata compiles it (build.rs: a C99
   compiler, <stdlib.h>, <string.h>, <limits.h>), uses none of its macros. */
