"""``walkChainBeforeParse``: a large, mostly dead buffer loses its dead branches before parsing.

Works on raw bytes, as 2.1.88 does: a message line starts with
``{"parentUuid":``; its parent is the 36 bytes after an opening quote; its own
uuid is the ``"uuid":"`` occurrence followed by ``","timestamp":"`` (the one at
brace depth 1 when several are), else the first ``"uuid":"``. The leaf is the
last message line without ``"isSidechain":true``. When the walked chain holds
more than half of the bytes, nothing changes; otherwise only chain lines and
every non-message line survive, in their order.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from operator import sub

PARENT_PREFIX = b'{"parentUuid":'
UUID_KEY = b'"uuid":"'
TS_SUFFIX = b'","timestamp":"'
SIDECHAIN_TRUE = b'"isSidechain":true'
UUID_LEN = 36

# (line number, its bytes): a view into the file for the lines of a large one
Lines = Sequence[tuple[int, bytes | memoryview]]
_CHUNK = 1 << 20


def contains(line: bytes | memoryview, marker: bytes) -> bool:
    """``marker in line``; a view is searched a chunk at a time, never copied whole."""
    if type(line) is bytes:
        return marker in line
    step = _CHUNK
    for at in range(0, len(line), step):
        if marker in bytes(line[at:at + step + len(marker) - 1]):
            return True
    return False


def _depth_at(line: bytes, end: int) -> int:
    """JSON nesting depth at offset ``end`` of ``line`` (strings and escapes skipped)."""
    depth = 0
    in_string = escaped = False
    for byte in line[:end]:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x7B, 0x5B):
            depth += 1
        elif byte in (0x7D, 0x5D):
            depth -= 1
    return depth


def own_uuid(line: bytes) -> bytes | None:
    """The line's own uuid bytes by 2.1.88's byte rules, or None."""
    return _own_uuid_at(line, 0, len(line))


def excise_dead_branches(lines: Lines, newline_terminated: bool = True) -> Lines:
    """The buffer ``walkChainBeforeParse`` returns, as numbered lines."""
    total = sum(len(line) + 1 for _, line in lines)
    if total <= 5 * 1024 * 1024:
        return lines
    slots: dict[bytes, int] = {}
    messages: list[tuple[int, bytes | None]] = []  # (index in lines, parent bytes)
    for index, (_, line) in enumerate(lines):
        if len(line) + 1 > len(PARENT_PREFIX) and line[:len(PARENT_PREFIX)] == PARENT_PREFIX:
            line = bytes(line)
            uuid = own_uuid(line)
            if uuid is not None:
                quoted = line[len(PARENT_PREFIX):len(PARENT_PREFIX) + 1] == b'"'
                parent = line[len(PARENT_PREFIX) + 1:len(PARENT_PREFIX) + 1 + UUID_LEN]
                slots[uuid] = len(messages)
                messages.append((index, parent if quoted else None))
    leaf = next((s for s in range(len(messages) - 1, -1, -1)
                 if not contains(lines[messages[s][0]][1], SIDECHAIN_TRUE)), None)
    if leaf is None:
        return lines
    chain: set[int] = set()
    chain_bytes = 0
    slot: int | None = leaf
    while slot is not None and messages[slot][0] not in chain:
        index, parent = messages[slot]
        chain.add(index)
        chain_bytes += len(lines[index][1]) + 1
        slot = slots.get(parent) if parent is not None else None
    if total - chain_bytes < total >> 1:
        return lines
    message_lines = {index for index, _ in messages}
    return tuple(item for index, item in enumerate(lines)
                 if index not in message_lines or index in chain)


def kept_spans(data: bytes, starts: Sequence[int], ends: Sequence[int]) -> list[int] | None:
    """``excise_dead_branches`` of lines held as places in one buffer (line ``i`` is
    ``data[starts[i]:ends[i]]``): the indices of the lines it keeps, in order, or None
    when it keeps the buffer as it is.

    The lines are read from the end only as far as the walk needs them: a uuid's line
    is the last one holding it, so the first found from the end; and once the chain
    holds more than half of the bytes the answer is known. No line is copied (but one
    whose own uuid needs its nesting depth).
    """
    total = sum(map(sub, ends, starts)) + len(starts)
    if total <= 5 * 1024 * 1024:
        return None
    messages = array("q")  # the message lines read so far, from the end
    scan = _own_uuids_from_end(data, starts, ends, messages)
    slots: dict[bytes, int] = {}  # own uuid -> the last message line holding it
    find, prefixed = data.find, data.startswith
    leaf = None
    for index, uuid in scan:
        slots.setdefault(uuid, index)
        if find(SIDECHAIN_TRUE, starts[index], ends[index]) == -1:
            leaf = index
            break
    if leaf is None:
        return None
    chain: set[int] = set()
    chain_bytes, head = 0, len(PARENT_PREFIX) + 1
    current: int | None = leaf
    while current is not None and current not in chain:
        chain.add(current)
        start, end = starts[current], ends[current]
        chain_bytes += end - start + 1
        if total - chain_bytes < total >> 1:
            return None  # the chain only grows: it keeps the buffer
        if not prefixed(b'"', start + head - 1, end):
            break
        parent = data[start + head : min(start + head + UUID_LEN, end)]
        current = slots.get(parent)
        if current is None:
            for index, uuid in scan:
                slots.setdefault(uuid, index)
                if uuid == parent:
                    current = index
                    break
    for _ in scan:  # every message line, to tell the dead ones
        pass
    dead = set(messages) - chain
    return [index for index in range(len(starts)) if index not in dead]


def _own_uuids_from_end(data: bytes, starts: Sequence[int], ends: Sequence[int],
                        messages: array[int]) -> Iterator[tuple[int, bytes]]:
    """(index, own uuid) of each message line, last first; each also into ``messages``."""
    prefixed, find, key, note = data.startswith, data.find, len(UUID_KEY), messages.append
    for index in range(len(starts) - 1, -1, -1):
        start, end = starts[index], ends[index]
        if not prefixed(PARENT_PREFIX, start, end):
            continue
        at = find(UUID_KEY, start, end)
        if at == -1:
            continue
        if find(UUID_KEY, at + key, end) == -1:  # one occurrence: it is the own uuid
            at += key
            uuid = data[at : at + UUID_LEN if at + UUID_LEN < end else end]
        else:
            uuid = _own_uuid_at(data, start, end)  # type: ignore[assignment]
        note(index)
        yield index, uuid


def _own_uuid_at(data: bytes, start: int, end: int) -> bytes | None:
    """``own_uuid`` of the line ``data[start:end]``, searched in place."""
    first_any = -1
    suffixed: list[int] = []
    find, prefixed = data.find, data.startswith
    at = find(UUID_KEY, start, end)
    while at >= 0:
        if first_any < 0:
            first_any = at
        if prefixed(TS_SUFFIX, at + len(UUID_KEY) + UUID_LEN, end):
            suffixed.append(at)
        at = find(UUID_KEY, at + len(UUID_KEY), end)
    if len(suffixed) > 1:
        line = data[start:end]
        depth_one = [at for at in suffixed if _depth_at(line, at - start) == 1]
        chosen = depth_one[0] if depth_one else suffixed[0]
    else:
        chosen = suffixed[0] if suffixed else first_any
    if chosen < 0:
        return None
    begin = chosen + len(UUID_KEY)
    return data[begin:min(begin + UUID_LEN, end)]
