"""A tool that needs the user's approval before it runs.

Tools registered with ``requires_approval=True`` call the approval callback first; a refusal
is sent to the agent as the tool's output ("the user declined ..."), so it can tell the user
instead of acting. In a terminal you are asked; otherwise ``--decline`` refuses and the
default approves.

Run: ``python examples/approval.py [--decline]``
"""

from __future__ import annotations

import json
import sys

from _target import app_target, example_parser

from appclient import AppClient, ApprovalCallback, ApprovalRequest, ToolRegistry

CANCELLED: list[str] = []


def cancel_order(order_id: str) -> str:
    """取消订单 (cancel an order). This cannot be undone.

    Args:
        order_id: 订单号，例如 "A1024"。
    """
    CANCELLED.append(order_id)
    return f"订单 {order_id} 已取消"


def get_order_status(order_id: str) -> str:
    """查询订单状态 (look up an order).

    Args:
        order_id: 订单号，例如 "A1024"。
    """
    return f"订单 {order_id}：已发货"


def make_approver(decline: bool) -> ApprovalCallback:
    def approve(request: ApprovalRequest) -> bool:
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False)
        question = f"allow {request.tool_name} {arguments}? [y/N] "
        if sys.stdin.isatty():
            return input(question).strip().lower() in ("y", "yes")
        print(question + ("n (--decline)" if decline else "y (not a terminal)"))
        return not decline

    return approve


def main(argv: list[str] | None = None) -> None:
    parser = example_parser(__doc__)
    parser.add_argument("--decline", action="store_true", help="refuse when not asked")
    args = parser.parse_args(argv)

    registry = ToolRegistry(approve=make_approver(args.decline))
    registry.add(cancel_order, requires_approval=True)
    registry.add(get_order_status)

    with app_target() as target, AppClient(target.app_id) as client:
        result = client.run_until_answer(query='请帮我取消订单 "A1024"', tools=registry)
    for call in result.tool_calls:
        print(f"call: {call.name} {dict(call.arguments)} -> {call.output}")
    print("cancelled orders:", CANCELLED or "none")
    print("answer:", result.answer)


if __name__ == "__main__":
    main()
