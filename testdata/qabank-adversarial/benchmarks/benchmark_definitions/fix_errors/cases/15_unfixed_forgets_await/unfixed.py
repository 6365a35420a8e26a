import asyncio


async def fetch():
    await asyncio.sleep(0)
    return 3


async def main():
    return fetch()
