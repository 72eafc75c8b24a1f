/* rk's version string: part of every compile cache key, so a new rk never reuses an old entry. */
#ifndef RK_VERSION_H
#define RK_VERSION_H

#define RK_VERSION_STRING "0.1.0"

const char *rt_version(void);

#endif
