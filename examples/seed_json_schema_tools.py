"""Seed way 1 (方式1): describe the tool with JSON Schema and answer its call by hand.

Below the marker is the AppBuilder ToolCall docs' code, unchanged but for the package
(``appbuilder`` -> ``appclient``, ``AppBuilderClient`` -> ``AppClient``) and the placeholders
for the token and app id, which come from ``_target`` (a hosted app when configured, the
embedded reference server otherwise). The seed's ``from appbuilder.core.console...
import data_class`` line is left out: the seed never uses it, and appclient's models are
importable from ``appclient`` itself.

Run: ``python examples/seed_json_schema_tools.py``
"""

# The seed's code below is kept verbatim (its line lengths, import order and docstrings):
# ruff: noqa: E501, I001

from _target import app_target, example_parser


def main(argv: list[str] | None = None) -> None:
    example_parser(__doc__).parse_args(argv)
    with app_target() as target:
        # --- the seed's code -------------------------------------------------------------
        # fmt: off
        import appclient
        import os

        # 请前往千帆AppBuilder官网创建密钥，流程详见：https://cloud.baidu.com/doc/AppBuilder/s/Olq6grrt6#1%E3%80%81%E5%88%9B%E5%BB%BA%E5%AF%86%E9%92%A5
        # 设置环境变量
        os.environ["APPBUILDER_TOKEN"] = target.token
        app_id = target.app_id  # 已发布AppBuilder应用的ID
        # 初始化智能体
        client = appclient.AppClient(app_id)
        # 创建会话
        conversation_id = client.create_conversation()
        tools = [
            {
                "type": "function",
                "function": {
                    "name": "get_current_weather",
                    "description": "仅支持中国城市的天气查询，参数location为中国城市名称，其他国家城市不支持天气查询",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "location": {
                                "type": "string",
                                "description": "城市名，举例：北京",
                            },
                            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                        },
                        "required": ["location", "unit"],
                    },
                },
            }
        ]

        msg = client.run(
            conversation_id=conversation_id, query="今天北京天气怎么样？", tools=tools
        )
        print(msg.model_dump_json(indent=4))

        event = msg.content.events[-1]

        msg_2 = client.run(
            conversation_id=conversation_id,
            tool_outputs=[{"tool_call_id": event.tool_calls[-1].id, "output": "北京今天35度"}],
        )
        print(msg_2.model_dump_json(indent=4))
        # fmt: on
        # --- end of the seed's code ------------------------------------------------------
        call = event.tool_calls[-1]
        print("tool call:", call.function.name, call.function.arguments)
        print("answer:", msg_2.content.answer)


if __name__ == "__main__":
    main()
