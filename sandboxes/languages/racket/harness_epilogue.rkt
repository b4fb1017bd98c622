(eprintf "{marker}\n")
(flush-output (current-error-port))
