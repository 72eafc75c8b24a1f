/* The runtime library's version, for the compile cache key and `rkc --version`. */
#include "runtime/version.h"

const char *rt_version(void)
{
    return RK_VERSION_STRING;
}
