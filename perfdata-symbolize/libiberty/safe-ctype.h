/* Stand-in for libiberty's include/safe-ctype.h (part of perfdata, MIT OR Apache-2.0): the
   four classification macros rust-demangle.c uses, with safe-ctype's meaning (the C locale's
   ASCII classes whatever the locale; false for bytes above 0x7f, which safe-ctype's table
   indexes as `c & 0xff`). Functions, so that each argument is evaluated once. */
#ifndef PERFDATA_SAFE_CTYPE_H
#define PERFDATA_SAFE_CTYPE_H
static inline int perfdata_isdigit (int c) { c &= 0xff; return c >= '0' && c <= '9'; }
static inline int perfdata_islower (int c) { c &= 0xff; return c >= 'a' && c <= 'z'; }
static inline int perfdata_isupper (int c) { c &= 0xff; return c >= 'A' && c <= 'Z'; }
static inline int perfdata_isalnum (int c)
{
  return perfdata_isdigit (c) || perfdata_islower (c) || perfdata_isupper (c);
}
#define ISDIGIT(c) perfdata_isdigit (c)
#define ISLOWER(c) perfdata_islower (c)
#define ISUPPER(c) perfdata_isupper (c)
#define ISALNUM(c) perfdata_isalnum (c)
#endif
