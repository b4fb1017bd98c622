io.stderr:write("{marker}\n")
