#ifndef LARDER_FUZZER_DRIVER_H
#define LARDER_FUZZER_DRIVER_H

/// Runs libFuzzer (LLVMFuzzerRunDriver) with the command line and calls `testOneInput` for every
/// input; `data` is never NULL, even for an empty input. Returns libFuzzer's exit status.
int larder_fuzzer_main(int argc, char *_Nullable *_Nonnull argv,
                       int (*_Nonnull testOneInput)(const void *_Nonnull data, long count));

#endif
