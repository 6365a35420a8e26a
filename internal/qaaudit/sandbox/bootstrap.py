# benchgate qa-audit sandbox bootstrap. Runs with the sandbox's own Python,
# in the user, network, mount and PID namespaces benchgate started it in,
# before pytest: it hides the file system outside the test's folder, the
# interpreter and the library (read-only binds on a new root), brings the
# loopback interface up, sets the resource limits, then runs pytest as its
# child and reports a child a limit stopped. Each step the kernel refuses
# is named on stderr ("benchgate-sandbox: refused: ...") and the others
# still run.
import ctypes
import fcntl
import json
import os
import platform
import resource
import signal
import socket
import struct
import sys

cfg = json.loads(sys.argv[1])
argv = sys.argv[2:]
here = os.path.realpath(os.getcwd())


def say(msg):
    os.write(2, ("benchgate-sandbox: %s\n" % msg).encode())


# ------------------------------------------------------------------ mounts
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        _libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    return _libc


def enc(s):
    return None if s is None else s.encode()


def mount(src, dst, fstype, flags, data=None):
    if libc().mount(enc(src), enc(dst), enc(fstype), flags, enc(data)) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s on %s: %s" % (src or fstype, dst, os.strerror(e)))


def locked_flags(path):
    """The flags a bind of path must keep when remounted read-only in a
    user namespace (nosuid, nodev, noexec of the mount it comes from)."""
    f = os.statvfs(path).f_flag
    return (f & (MS_NOSUID | MS_NODEV | MS_NOEXEC)) | (f & 1024) | (f & 2048) | ((1 << 21) if f & 4096 else 0)


def bind(src, root, readonly=True):
    dst = root + src
    if os.path.islink(src):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.lexists(dst):
            os.symlink(os.readlink(src), dst)
        return
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            open(dst, "a").close()
    mount(src, dst, None, MS_BIND)
    if readonly:
        mount(None, dst, None, MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags(src))


SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
ETC = ["passwd", "group", "hosts", "nsswitch.conf", "localtime", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
       "resolv.conf", "ssl", "ca-certificates", "mime.types", "os-release", "alternatives", "python3", "timezone"]


def executable_dirs():
    """The folder of every link on the way from sys.executable to the
    interpreter: a venv's python may point at a tool cache's python that
    points at /usr/bin, and exec follows each hop."""
    dirs, p = [], sys.executable
    for _ in range(40):
        dirs.append(os.path.dirname(p))
        if not os.path.islink(p):
            break
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    return dirs


def visible_paths():
    """What a test may read: the system's programs and libraries, this
    interpreter (its prefixes and every folder on sys.path, the
    benchmark's library included) and a few files of /etc."""
    paths = set(p for p in SYSTEM if os.path.lexists(p))
    paths.update("/etc/" + e for e in ETC if os.path.lexists("/etc/" + e))
    for p in [sys.prefix, sys.base_prefix, sys.exec_prefix] + executable_dirs() + sys.path + \
            os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if p and os.path.isabs(p) and os.path.exists(p):
            paths.add(os.path.abspath(p))
            paths.add(os.path.realpath(p))
    paths.discard("/")
    out = []
    for p in sorted(paths, key=len):
        if not any(p.startswith(q.rstrip("/") + "/") for q in out if not os.path.islink(q)):
            out.append(p)
    return out


def hide_file_system():
    root = os.path.join(here, ".sandbox_root")
    os.makedirs(root, exist_ok=True)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
    # First, so that the folders bound below (often under /tmp) stay
    # visible on top of them.
    for d in ("/tmp", "/dev/shm"):
        os.makedirs(root + d, exist_ok=True)
        mount("tmpfs", root + d, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=256m")
    for p in visible_paths():
        bind(p, root)
        git = os.path.join(p, ".git")
        if os.path.isdir(git) and not os.path.islink(p):
            # A checkout's .git holds the token actions/checkout wrote.
            mount("tmpfs", root + git, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k")
    bind(here, root, readonly=False)
    for dev in ("null", "zero", "full", "random", "urandom"):
        bind("/dev/" + dev, root, readonly=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, root + "/dev/" + name)
    os.makedirs(root + "/proc", exist_ok=True)
    try:
        mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as e:
        say("refused: a /proc of its own (%s); the test has no /proc" % e.strerror)
    os.makedirs(root + "/.old", exist_ok=True)
    nr = {"x86_64": 155, "aarch64": 41, "arm64": 41}.get(platform.machine())
    if nr is None or libc().syscall(nr, enc(root), enc(root + "/.old")) != 0:
        raise OSError(ctypes.get_errno(), "pivot_root: %s" % os.strerror(ctypes.get_errno()))
    os.chdir("/")
    if libc().umount2(b"/.old", MNT_DETACH) != 0:
        raise OSError(ctypes.get_errno(), "umount the old root")
    os.rmdir("/.old")
    mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(here)


def loopback_up():
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP, IFF_RUNNING = 0x8913, 0x8914, 0x1, 0x40
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = struct.pack("16sH14s", b"lo", 0, b"\0" * 14)
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, ifr)[:18])[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP | IFF_RUNNING, b"\0" * 14))


def uid_map():
    try:
        with open("/proc/self/uid_map") as f:
            return [list(map(int, line.split())) for line in f if line.strip()]
    except (OSError, ValueError):
        return []


def nobody_mapped(rows):
    """Whether uid 1 of this namespace is mapped (to the host's nobody):
    benchgate maps it when it runs as root."""
    return any(inside <= 1 < inside + count and outside != 0 for inside, outside, count in rows)


def give_up_privileges(can_switch):
    """Run the test without any capability over the namespaces just
    built: as nobody where it is mapped (then RLIMIT_NPROC holds too),
    otherwise in one more user namespace, where the capabilities of this
    one (over its mounts and network) are gone."""
    if can_switch:
        os.makedirs(os.path.join(here, ".home"), exist_ok=True)
        for p in (here, os.path.join(here, ".home")):
            os.chown(p, 1, 1)
        os.setresgid(1, 1, 1)
        os.setresuid(1, 1, 1)
        return
    if libc().unshare(0x10000000) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER): %s" % os.strerror(ctypes.get_errno()))
    for name, text in (("setgroups", "deny"), ("uid_map", "0 0 1"), ("gid_map", "0 0 1")):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)


rows = uid_map()
switch = nobody_mapped(rows)
host_root = not rows or any(inside == 0 and outside == 0 for inside, outside, _ in rows)
hidden = False
if cfg.get("hide"):
    try:
        hide_file_system()
        hidden = True
    except Exception as e:
        say("refused: hiding the file system (%s); the test can read this machine's files" % e)
        try:
            os.chdir(here)
        except OSError:
            say("the test's folder is gone after a partial setup")
            os._exit(3)
try:
    loopback_up()
except OSError as e:
    say("refused: loopback (%s)" % e.strerror)

LIMITS = {"memory": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "file_size": resource.RLIMIT_FSIZE, "processes": resource.RLIMIT_NPROC}
for name, value in cfg.get("limits", {}).items():
    if value:
        try:
            resource.setrlimit(LIMITS[name], (value, value))
        except (ValueError, OSError) as e:
            say("refused: the %s limit (%s)" % (name, e))

if hidden:
    try:
        give_up_privileges(switch)
    except OSError as e:
        say("refused: giving up its privileges (%s); the test could undo its file system" % e)
# (In a container, hide is off and the engine's pids limit holds instead.)
if cfg.get("hide") and host_root and not (hidden and switch) and cfg.get("limits", {}).get("processes"):
    say("refused: the processes limit (the kernel does not hold RLIMIT_NPROC for the host's root)")

pid = os.fork()
if pid == 0:
    try:
        # The interpreter's own options (python -S, -I) hold for pytest too.
        orig = getattr(sys, "orig_argv", [sys.executable, "-c"])
        flags = orig[1:orig.index("-c")] if "-c" in orig else []
        os.execv(sys.executable, [sys.executable] + flags + argv)
    except OSError as e:
        say("cannot start %s: %s" % (sys.executable, e))
    finally:
        os._exit(127)
# As the namespace's first process this one reaps every orphan, and its
# exit ends every process the test left behind.
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda s, f: os.kill(pid, s))
while True:
    try:
        got, status, usage = os.wait4(-1, 0)
    except ChildProcessError:
        os._exit(1)
    except InterruptedError:
        continue
    if got != pid:
        continue
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        cpu = cfg.get("limits", {}).get("cpu") or 0
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu and usage.ru_utime + usage.ru_stime >= cpu - 0.5):
            say("limit: cpu")
        elif sig == signal.SIGXFSZ:
            say("limit: file_size")
        say("pytest was killed by signal %d (%s)" % (sig, signal.Signals(sig).name))
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status))
