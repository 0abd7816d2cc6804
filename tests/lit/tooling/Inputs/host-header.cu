// Includes a header only the host compiler's include directories hold.
#include <stddef.h>
#include <host_only.h>

__global__ void uses_host_header(int *p) { p[0] = FROM_HOST_COMPILER + static_cast<int>(sizeof(size_t)); }
