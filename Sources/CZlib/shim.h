#ifndef LARDER_CZLIB_SHIM_H
#define LARDER_CZLIB_SHIM_H

#include <zlib.h>

// inflateInit2 is a macro (it passes the zlib version and the z_stream size to
// inflateInit2_), which Swift cannot call: this typed wrapper stands in for it.

static inline int larder_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
