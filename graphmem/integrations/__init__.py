"""graphmem in the agent frameworks, each behind its own extra (docs/integrations.md).

====================  ===========================================  ======================
module                what it implements                           extra
====================  ===========================================  ======================
``core``              AgentMemory: a space + conversation, tools   (none)
``langgraph``         BaseStore; context and store hooks           ``graphmem[langgraph]``
``langchain``         BaseRetriever; BaseChatMessageHistory        ``graphmem[langchain]``
``llamaindex``        BaseMemoryBlock                              ``graphmem[llamaindex]``
``autogen``           autogen-core's Memory                        ``graphmem[autogen]``
``adk``               Google ADK's BaseMemoryService               ``graphmem[adk]``
``openai_agents``     OpenAI Agents SDK's Session; function tools  ``graphmem[openai-agents]``
``pydantic_ai``       tools; a history processor                   ``graphmem[pydantic-ai]``
``agent_framework``   Microsoft Agent Framework's ContextProvider  ``graphmem[agent-framework]``
``crewai``            CrewAI's unified Memory                      ``graphmem[crewai]``
``strands``           Strands Agents' MemoryStore                  ``graphmem[strands]``
====================  ===========================================  ======================

Importing this package imports no framework; each module imports its own.
"""

ADAPTERS = ("langgraph", "langchain", "llamaindex", "autogen", "adk", "openai_agents",
            "pydantic_ai", "agent_framework")
# adapters whose framework cannot be installed beside graphmem[server] (an older MCP pinned):
# tested in an environment of their own (tests/apart/)
APART = ("crewai", "strands")
