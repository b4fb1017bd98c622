"""gRPC reward server for RL on code and equational math."""
