cat("{marker}\n", file = stderr())
