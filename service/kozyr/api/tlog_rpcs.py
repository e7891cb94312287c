"""The transparency log's RPCs (docs/fairness.md §9): the signed tree head, a match's (or a
leaf's) inclusion proof and the consistency proof between two sizes. They answer every caller
as GetSigningKeys does: a log is worth what its monitors check."""

from __future__ import annotations

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api.rpc_calls import Context, rpc
from kozyr.engine import Engine
from kozyr.match import limits
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.secrets.tlog import TransparencyLog
from kozyr.wire import tlog_messages


class TlogRpcs:
    """KozyrService's transparency-log RPCs (a part of KozyrService: api/servicer.py)."""

    engine: Engine

    @rpc
    async def GetTreeHead(
        self, request: pb.GetTreeHeadRequest, context: Context
    ) -> pb.GetTreeHeadResponse:
        """The log's signed tree head now."""
        return pb.GetTreeHeadResponse(tree_head=tlog_messages.tree_head(self._tlog().head()))

    @rpc
    async def GetInclusionProof(
        self, request: pb.GetInclusionProofRequest, context: Context
    ) -> pb.GetInclusionProofResponse:
        """A match's leaves, or one leaf, with their audit paths in a tree of a given size."""
        tlog = self._tlog()
        size = tlog.checked_size(request.tree_size)
        if request.WhichOneof("leaf") == "leaf_index":
            index = request.leaf_index
            if not 0 <= index < size:
                raise bad_request(
                    "BAD_LEAF_INDEX", f"the tree of {size} leaves has leaves 0..{size - 1}"
                )
            indices = [index]
        else:
            limits.check_match_id(request.match_id)
            indices = [i for i, _ in tlog.leaves_of(request.match_id, size)]
        leaves = [
            tlog_messages.log_leaf(i, tlog.leaf_data(i), tlog.tree.inclusion_proof(i, size))
            for i in indices
        ]
        return pb.GetInclusionProofResponse(tree_size=size, leaves=leaves)

    @rpc
    async def GetConsistencyProof(
        self, request: pb.GetConsistencyProofRequest, context: Context
    ) -> pb.GetConsistencyProofResponse:
        """The proof that the tree of first_size leaves is a prefix of the second's."""
        tlog = self._tlog()
        second = tlog.checked_size(request.second_size)
        proof = tlog.consistency(request.first_size, second)
        return pb.GetConsistencyProofResponse(
            first_size=request.first_size, second_size=second, proof=proof
        )

    def _tlog(self) -> TransparencyLog:
        if self.engine.tlog is None:
            raise MatchError(
                Kind.PRECONDITION,
                "TRANSPARENCY_LOG_OFF",
                "this server keeps no transparency log (kozyr serve --no-tlog, or an "
                "embedded server)",
            )
        return self.engine.tlog
