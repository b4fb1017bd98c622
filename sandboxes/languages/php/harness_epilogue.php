fwrite(STDERR, "{marker}\n");
