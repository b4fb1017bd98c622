"""What both ends of the gRPC connection must agree on, beyond the proto itself."""

from __future__ import annotations

from reward_server.pb import reward_pb2

SERVICE_NAME = reward_pb2.DESCRIPTOR.services_by_name["RewardService"].full_name  # also its health-check name
MAX_MESSAGE_BYTES = 256 << 20  # a batch of long completions with their tests; gRPC's 4 MiB default is too small
MESSAGE_SIZE_OPTIONS = (("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES))
