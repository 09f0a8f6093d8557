/* Stand-in for libiberty's include/libiberty.h (part of perfdata, MIT OR Apache-2.0).
   cp-demangle.c and demangle.h include it but, outside its STANDALONE_DEMANGLER test
   driver, use none of its declarations: the demangler calls only the C library
   (malloc, realloc, free, memcpy, sprintf, strcmp, strlen, strncmp). */
