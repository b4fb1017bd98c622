"""Bearer-token authentication of every RPC but health checking, before any servicer runs.

Refused calls end in UNAUTHENTICATED here, so nothing is validated, graded or counted for them. Health
stays open: Kubernetes' gRPC probes and load balancers cannot send a token, and it tells nothing but
SERVING / NOT_SERVING.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Awaitable, Callable, Iterable

import grpc

from reward_server.credentials import AUTHORIZATION

log = logging.getLogger(__name__)

OPEN_PREFIX = "/grpc.health.v1.Health/"
BEARER = "Bearer "


def _digest(token: str) -> bytes:
    # Hashing first makes every comparison the same length, so timing tells nothing of a token's length.
    return hashlib.sha256(token.encode()).digest()


class TokenAuth(grpc.aio.ServerInterceptor):
    def __init__(self, tokens: Iterable[str]) -> None:
        self._digests = tuple(_digest(token) for token in tokens)

    def _refusal(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
        """Why the call is refused, or None when its token is one of ours."""
        header = next((value for key, value in metadata or () if key == AUTHORIZATION), None)
        if not isinstance(header, str) or not header.startswith(BEARER):
            return "missing bearer token (metadata 'authorization: Bearer TOKEN')"
        given = _digest(header[len(BEARER):])
        # every token is compared (no early exit), each in constant time
        matches = [hmac.compare_digest(given, digest) for digest in self._digests]
        return None if any(matches) else "wrong bearer token"

    async def intercept_service(
            self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
            handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        method = handler_call_details.method
        if method.startswith(OPEN_PREFIX):
            return await continuation(handler_call_details)
        reason = self._refusal(handler_call_details.invocation_metadata)
        handler = await continuation(handler_call_details)
        if reason is None or handler is None:
            return handler
        log.warning("refused %s: %s", method, reason)
        return _refusing(handler, reason)


def _refusing(handler: grpc.RpcMethodHandler, reason: str) -> grpc.RpcMethodHandler:
    """A handler of the same shape as `handler` that only answers UNAUTHENTICATED."""

    async def unary(request: object, context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, reason)

    async def streaming(request: object, context: grpc.aio.ServicerContext):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, reason)
        yield  # never reached: makes this an async generator, which streaming handlers must be

    kinds = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }
    streams = (handler.request_streaming, handler.response_streaming)
    return kinds[streams](streaming if handler.response_streaming else unary,
                          request_deserializer=handler.request_deserializer,
                          response_serializer=handler.response_serializer)
