"""Load tester: drives reward servers with a workload mix and reports throughput, latency and pool use."""
