 __attribute__((visibility("protected")));
