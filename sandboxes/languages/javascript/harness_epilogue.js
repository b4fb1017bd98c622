process.stderr.write("{marker}\n");
