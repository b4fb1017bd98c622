"""Pure grading rules (no gRPC, no sandboxes): verdict and code extraction, output comparison,
program assembly. Each module reproduces one reference grader's rules exactly."""
