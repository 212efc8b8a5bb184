#ifndef LARDER_CFILESYNC_SHIM_H
#define LARDER_CFILESYNC_SHIM_H

// glibc declares sync_file_range only under _GNU_SOURCE, which Swift's Glibc module is built
// without: this wrapper makes it callable (Sources/LarderStore/BodyBarrier.swift).

#ifdef __linux__
#include <sys/types.h>

extern int sync_file_range(int fd, __off64_t offset, __off64_t nbytes, unsigned int flags);

// Starts writing back all of a file's dirty pages, without waiting for them or its metadata
// (SYNC_FILE_RANGE_WRITE).
static inline int larder_start_writeback(int descriptor) {
    return sync_file_range(descriptor, 0, 0, 2U);
}

// The type of the file system holding `path` (statfs's f_type, a magic number of linux/magic.h),
// or 0 when statfs fails: Swift's Glibc module does not export statfs.
#include <sys/vfs.h>

static inline unsigned long larder_file_system_type(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? (unsigned long)info.f_type : 0UL;
}
#endif

#endif
