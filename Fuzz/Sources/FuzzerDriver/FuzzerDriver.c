#include "FuzzerDriver.h"

#include <stddef.h>
#include <stdint.h>

// In libclang_rt.fuzzer, linked by -sanitize=fuzzer.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

static int (*userCallback)(const void *_Nonnull data, long count);

static int callUser(const uint8_t *data, size_t size) {
    static const uint8_t empty = 0;
    return userCallback(data != NULL ? (const void *)data : (const void *)&empty, (long)size);
}

int larder_fuzzer_main(int argc, char **argv, int (*testOneInput)(const void *_Nonnull data, long count)) {
    userCallback = testOneInput;
    return LLVMFuzzerRunDriver(&argc, &argv, callUser);
}
