import asyncio, json, sys, os
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main(out, times, cwd, pypath, *cmd):
    params = StdioServerParameters(command=cmd[0], args=list(cmd[1:]), cwd=cwd,
                                   env={"PATH": os.environ["PATH"], "PYTHONPATH": pypath})
    results = []
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            for _ in range(int(times)):
                res = await s.list_tools()
                results.append([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in res.tools])
    json.dump(results, open(out, "w"), indent=1, ensure_ascii=False)
    print(out, [len(x) for x in results])

asyncio.run(main(*sys.argv[1:]))
