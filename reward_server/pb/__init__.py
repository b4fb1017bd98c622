"""Generated protobuf and gRPC stubs for reward.v1 (see reward_server.protogen)."""
