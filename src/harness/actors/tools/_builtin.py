"""Every built-in tool, declared once.

Names and parameters are what users' models see: change them only on purpose.
Handlers for the ``tools`` executor live in the worker (``_handlers.py``); the
drift test checks both sides agree.
"""

from __future__ import annotations

from typing import Any

from harness.actors.tools._table import Executor, Kind, ToolSpec, ToolTable

__all__ = ["BUILTIN_TOOLS", "SMALL_MODEL_TOOLS", "builtin_table"]


def _obj(required: tuple[str, ...] = (), **props: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def _s(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _i(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, **extra}


def _b(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "boolean", "description": description, **extra}


_PATH = "Path relative to the workspace root."


def _tool(
    name: str,
    description: str,
    parameters: dict[str, Any],
    main_arg: str | None = None,
    kind: Kind = "read",
    executor: Executor = "tools",
    terminating: bool = False,
    secret_args: tuple[str, ...] = (),
    also_match: tuple[str, ...] = (),
    place_arg: str | None = None,
    reads_when: tuple[str, tuple[str, ...]] | None = None,
    url_arg: str | None = None,
) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description,
        parameters=parameters,
        main_arg=main_arg,
        kind=kind,
        executor=executor,
        terminating=terminating,
        secret_args=secret_args,
        also_match=also_match,
        place_arg=place_arg,
        paths=main_arg in ("path", "source"),
        reads_when=reads_when,
        url_arg=url_arg,
    )


_EDIT = _obj(
    ("old_text", "new_text"),
    old_text=_s("Exact text to replace; must occur exactly once in the file."),
    new_text=_s("Replacement text."),
)

BUILTIN_TOOLS: tuple[ToolSpec, ...] = (
    # --- files (tools worker) ---
    _tool(
        "read_file",
        "Read a text file. Returns numbered lines as `LINE:HASH|text` (HASH is 2 characters "
        "identifying the line), at most 400 lines / 20,000 characters per call, the file's "
        "`version` (pass it to write_file to refuse overwriting a file changed since), and "
        "`next_read` to pass back to continue exactly where the output stopped.",
        _obj(
            ("path",),
            path=_s(_PATH),
            start_line=_i("First line to read (1-based).", minimum=1),
            end_line=_i("Last line to read (inclusive).", minimum=1),
            next_read={
                "type": "object",
                "description": "The `next_read` object of the previous call, to continue.",
                "properties": {
                    "line": {"type": "integer", "minimum": 1},
                    "column": {"type": "integer", "minimum": 0},
                },
                "required": ["line"],
                "additionalProperties": False,
            },
        ),
        main_arg="path",
    ),
    _tool(
        "write_file",
        "Create a file (and its parent folders) or overwrite it with `content`. With "
        "`version` (from read_file), refuses if the file changed since it was read.",
        _obj(
            ("path", "content"),
            path=_s(_PATH),
            content=_s("The whole new content of the file."),
            version=_s("The `version` read_file returned; the write fails if it differs."),
        ),
        main_arg="path",
        kind="mutating",
    ),
    _tool(
        "edit_file",
        "Replace exact text in a file. Give `old_text` and `new_text`, or `edits` (a list of "
        "{old_text, new_text}). Each old_text must match exactly once in the original file and "
        "edits must not overlap; if any edit fails nothing is written.",
        _obj(
            ("path",),
            path=_s(_PATH),
            old_text=_s("Exact text to replace; must occur exactly once in the file."),
            new_text=_s("Replacement text."),
            edits={
                "type": "array",
                "description": "Several replacements, applied together in one write.",
                "items": _EDIT,
                "minItems": 1,
            },
        ),
        main_arg="path",
        kind="mutating",
    ),
    _tool(
        "move_file",
        "Move or rename a file or folder inside the workspace.",
        _obj(("source", "destination"), source=_s(_PATH), destination=_s(_PATH)),
        main_arg="source",
        kind="mutating",
        also_match=("destination",),
    ),
    _tool(
        "copy_file",
        "Copy a file or folder inside the workspace.",
        _obj(("source", "destination"), source=_s(_PATH), destination=_s(_PATH)),
        main_arg="source",
        kind="mutating",
        also_match=("destination",),
    ),
    _tool(
        "delete_path",
        "Delete a file or a folder with everything in it.",
        _obj(("path",), path=_s(_PATH)),
        main_arg="path",
        kind="mutating",
    ),
    _tool(
        "create_dir",
        "Create a folder (and its parents).",
        _obj(("path",), path=_s(_PATH)),
        main_arg="path",
        kind="mutating",
    ),
    _tool(
        "list_dir",
        "List a folder: names, `/` after folders, sizes of files.",
        _obj(path=_s(_PATH + " Default: the workspace root.", default=".")),
        main_arg="path",
    ),
    _tool(
        "find_files",
        "Find files whose path matches a glob (`*.py`, `src/**/test_*.py`), respecting "
        ".gitignore. A pattern without `/` matches file names at any depth.",
        _obj(
            ("pattern",),
            pattern=_s("Glob pattern."),
            path=_s("Folder to search in. Default: the workspace root.", default="."),
        ),
        main_arg="pattern",
    ),
    _tool(
        "search_text",
        "Search the contents of files for a text, to find which file defines or mentions a "
        "name. Prints `path:line:text` for each matching line; respects .gitignore.",
        _obj(
            ("pattern",),
            pattern=_s(
                "Text to look for (a regular expression when `regex` is true). A name "
                "alone finds the line that defines it and the lines that use it, and the "
                "result says which is which."
            ),
            path=_s("File or folder to search. Default: the workspace root.", default="."),
            glob=_s("Only files whose name or path matches this glob (`*.py`)."),
            regex=_b("Treat pattern as a regular expression. Default false.", default=False),
        ),
        main_arg="pattern",
    ),
    # --- git and system (tools worker) ---
    _tool("git_status", "Show `git status` of the workspace (branch, changed files).", _obj()),
    _tool(
        "git_diff",
        "Show uncommitted changes (staged and unstaged), optionally for one path.",
        _obj(path=_s(_PATH)),
        main_arg="path",
    ),
    _tool(
        "get_system_info",
        "Describe the machine: OS, CPU, memory, disk, the busiest processes.",
        _obj(),
    ),
    # --- tree-sitter (tools worker) ---
    _tool(
        "get_code_skeleton",
        "Outline a source file with tree-sitter: classes, functions and methods with their "
        "line numbers and signatures, no bodies. Python, JS/TS, Go, Rust, Java, C/C++, Ruby, "
        "Bash and more.",
        _obj(("path",), path=_s(_PATH)),
        main_arg="path",
    ),
    _tool(
        "query_ast",
        "Run a tree-sitter S-expression query on a source file, e.g. "
        "`(function_definition name: (identifier) @name)`. Prints each capture with its "
        "line and text.",
        _obj(("path", "query"), path=_s(_PATH), query=_s("A tree-sitter query.")),
        main_arg="path",
    ),
    # --- shell (shell worker; issue 6) ---
    _tool(
        "run_cmd",
        "Run a command with bash in the workspace under a terminal. Returns when it exits "
        "(exit code and output), when it waits for input (output so far and a session id: "
        "answer with send_input), or at its timeout (the command and everything it started "
        "is killed; output so far is kept).",
        _obj(
            ("command",),
            command=_s("The command line, run with `bash -c`."),
            stdin=_s("Answers to send up front, one line per prompt."),
            timeout={
                "type": "number",
                "description": "Seconds before the command is killed. Default 120.",
                "minimum": 1,
            },
            cwd=_s("Folder inside the workspace to run in. Default: the workspace root."),
        ),
        main_arg="command",
        kind="shell",
        executor="shell",
        place_arg="cwd",
    ),
    _tool(
        "send_input",
        "Send a line of text to a command waiting for input (session id from run_cmd) and "
        "return what it prints next. An empty text just collects more output.",
        _obj(
            ("session", "text"),
            session=_s("Session id returned by run_cmd, such as `s1`."),
            text=_s("Text to send; a newline is added."),
        ),
        main_arg="text",
        kind="shell",
        executor="shell",
    ),
    _tool(
        "end_process",
        "Stop a live command (session id from run_cmd) and everything it started.",
        _obj(("session",), session=_s("Session id returned by run_cmd.")),
        main_arg="session",
        kind="read",
        executor="shell",
    ),
    # --- the web (search worker; issue 18) ---
    _tool(
        "search_web",
        "Search the web. Returns the most relevant passages of the pages found, each with "
        "its URL, or says plainly that nothing relevant was found (and which pages were "
        "rejected). Put exact identifiers (`num_ctx`, `asyncio.TaskGroup`) in the query: "
        "a passage must contain one to count.",
        _obj(("query",), query=_s("What to look for: a few keywords and identifiers.")),
        main_arg="query",
        kind="network",
        executor="search",
    ),
    _tool(
        "get_url",
        "Fetch a web page (http/https) as readable text: the page's main content without "
        "navigation, or a text/JSON document as it is. Binary content is refused; long "
        "pages are cut.",
        _obj(("url",), url=_s("The page's URL, http:// or https://.")),
        main_arg="url",
        kind="network",
        executor="search",
        url_arg="url",
    ),
    _tool(
        "call_api",
        "Make an HTTP request and return the status, the response headers and the body "
        "(long bodies are cut). A `body` object or array is sent as JSON, a string as text.",
        _obj(
            ("method", "url"),
            method=_s(
                "The HTTP method.",
                enum=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
            ),
            url=_s("The URL, http:// or https://."),
            headers={
                "type": "object",
                "description": "Request headers, name to value.",
                "additionalProperties": {"type": "string"},
            },
            body={
                "type": ["object", "array", "string"],
                "description": "The request body: JSON (object or array) or text (string).",
            },
        ),
        main_arg="url",
        kind="network",
        executor="search",
        secret_args=("headers",),
        reads_when=("method", ("GET", "HEAD")),
        url_arg="url",
    ),
    # --- the frontend ---
    _tool(
        "get_user_input",
        "Ask the user one or more questions. Each question may offer options; the user may "
        "also answer in their own words.",
        _obj(
            ("questions",),
            questions={
                "type": "array",
                "minItems": 1,
                "items": _obj(
                    ("question",),
                    question=_s("The question."),
                    options={"type": "array", "items": {"type": "string"}},
                ),
            },
        ),
        executor="frontend",
    ),
    _tool(
        "submit_plan",
        "Submit your plan for the user's approval (plan mode). Ends the run.",
        _obj(("plan",), plan=_s("The plan, in Markdown.")),
        executor="frontend",
        terminating=True,
    ),
    # --- the conversation ---
    _tool(
        "spawn_agent",
        "Hire a sub-agent for one self-contained job: a fresh conversation with its own "
        "history that sees only what you give it and answers with a report. Several "
        "spawn_agent calls in one reply run in parallel. Use it for independent pieces "
        "of work (explore one area, check one thing); it cannot ask the user anything.",
        _obj(
            ("task",),
            task=_s("The job, complete in itself: what to do and what to report."),
            context=_s("Facts you already have that the job needs."),
            model=_s("Another model of the same provider, such as a cheaper one."),
            tools={
                "type": "array",
                "items": {"type": "string"},
                "description": "Only these tools (such as the read-only ones); default all.",
            },
        ),
        kind="agent",
        executor="conversation",
    ),
    _tool(
        "use_skill",
        "Load a skill's instructions by name.",
        _obj(("name",), name=_s("The skill's name.")),
        main_arg="name",
        executor="conversation",
    ),
    _tool(
        "write_memory",
        "Save a fact to long-term memory under a key.",
        _obj(("key", "value"), key=_s("Short name of the memory."), value=_s("What to keep.")),
        main_arg="key",
        kind="mutating",
        executor="conversation",
    ),
    _tool(
        "read_memory",
        "Read one memory by key.",
        _obj(("key",), key=_s("The memory's key.")),
        main_arg="key",
        executor="conversation",
    ),
    _tool(
        "list_memory",
        "List the keys of long-term memory.",
        _obj(),
        executor="conversation",
    ),
    _tool(
        "edit_memory",
        "Replace exact text in one memory.",
        _obj(
            ("key", "old_text", "new_text"),
            key=_s("The memory's key."),
            old_text=_s("Exact text to replace."),
            new_text=_s("Replacement text."),
        ),
        main_arg="key",
        kind="mutating",
        executor="conversation",
    ),
    _tool(
        "delete_memory",
        "Delete one memory by key.",
        _obj(("key",), key=_s("The memory's key.")),
        main_arg="key",
        kind="mutating",
        executor="conversation",
    ),
)


#: The tools offered to a small embedded model. Every tool's description is prompt the
#: model reads before its first token, at tens of tokens a second on a laptop's CPU,
#: and a 1.5B model picks the right tool more often from fewer. These cover looking,
#: editing and running; the rest stay in the table for hosted models.
SMALL_MODEL_TOOLS: tuple[str, ...] = (
    "read_file",
    "write_file",
    "edit_file",
    "list_dir",
    "find_files",
    "search_text",
    "run_cmd",
    "send_input",
    "git_status",
    "git_diff",
    "submit_plan",
)


def builtin_table() -> ToolTable:
    """A fresh table of every built-in tool (each session may add its own to it)."""
    return ToolTable(BUILTIN_TOOLS)
