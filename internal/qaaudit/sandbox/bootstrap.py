# benchgate qa-audit sandbox bootstrap. benchgate runs it as
#   python -I -S -B -c <this> <config> <python arguments...>
# from an empty working directory: isolated mode, no site, no user site, no
# PYTHONPATH, so nothing but the interpreter's own standard library can run
# before the sandbox is complete (a case file named json.py or a
# sitecustomize.py in the repository is not on the path yet).
#
# With "sandbox" on, it forks a child that makes user, mount, network and
# PID namespaces of its own; this process (outside them, still dumpable
# after its execve) writes the child's uid and gid maps, which a
# non-dumpable benchgate could not. The child's own child is the PID
# namespace's first process: it hides the file system outside the test's
# folder, the interpreter and the library (read-only binds on a new root),
# brings the loopback up, sets the resource limits, gives up its
# privileges, and only then starts pytest with the test's PYTHONPATH and
# folder. If any of that is refused, pytest does not start.
#
# What the sandbox itself observed goes to benchgate on the file
# descriptor named by "status_fd", which the test never holds:
#   ready                 the sandbox is complete and pytest starts
#   refused <why>         the sandbox could not be built; pytest did not start
#   note <what>           a part that is missing without weakening isolation
#   limit <name>          the test ran into this limit
import ctypes
import json
import os
import resource
import signal
import socket
import struct
import sys
import time

cfg = json.loads(sys.argv[1])
argv = sys.argv[2:]
here = os.path.realpath(cfg["dir"])
status_fd = cfg.get("status_fd")
HOST_UID = os.getuid()  # before any user namespace
limits = cfg.get("limits", {})

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
EXIT_REFUSED = 125


def say(msg):
    os.write(2, ("benchgate-sandbox: %s\n" % msg).encode())


def report(line):
    if status_fd is not None:
        try:
            os.write(status_fd, (line + "\n").encode())
        except OSError:
            pass


APPARMOR_USERNS = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"


def refuse(why):
    """The sandbox cannot be built: say so and never start the test."""
    try:
        if open(APPARMOR_USERNS).read().strip() == "1" and HOST_UID != 0:
            why += ("; AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1),"
                    " which a runner with sudo lifts for the job with: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0")
    except OSError:
        pass
    say("refused: " + why)
    report("refused " + why)
    os._exit(EXIT_REFUSED)


_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        _libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
        _libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return _libc


def oserror(what):
    e = ctypes.get_errno()
    return OSError(e, "%s: %s" % (what, os.strerror(e)))


def prctl(option, value):
    if libc().prctl(option, value, 0, 0, 0) != 0:
        raise oserror("prctl(%d)" % option)


def enc(s):
    return None if s is None else s.encode()


# ------------------------------------------------------------------ mounts
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2


def mount(src, dst, fstype, flags, data=None):
    if libc().mount(enc(src), enc(dst), enc(fstype), flags, enc(data)) != 0:
        raise oserror("mount %s on %s" % (src or fstype, dst))


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
# What a runner or a cloud-auth action leaves at the root of a checkout or
# a home folder: never visible in a folder the test may read.
CREDENTIALS = (".git", ".netrc", ".npmrc", ".pypirc", ".docker", ".git-credentials", ".aws", ".azure",
               ".config", ".kube", ".ssh", ".gnupg", ".env")


def is_credential(name):
    return name in CREDENTIALS or (name.startswith("gha-creds-") and name.endswith(".json"))


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


def venv_prefix():
    """The virtual environment sys.executable belongs to, found as site
    finds it (a pyvenv.cfg beside the interpreter or one folder up), or
    None. Without site (-S) sys.prefix does not name it."""
    exe_dir = os.path.dirname(os.path.abspath(sys.executable))
    for d in (exe_dir, os.path.dirname(exe_dir)):
        if os.path.isfile(os.path.join(d, "pyvenv.cfg")):
            return os.path.dirname(exe_dir)
    return None


def site_dirs():
    """The site-packages folders the interpreter will use under pytest,
    and the folders their .pth files add, read without running anything:
    plain path lines as site adds them, and the folders an editable
    install's finder maps its packages to."""
    import ast
    import re
    import site
    prefixes = [sys.prefix, sys.exec_prefix]
    venv = venv_prefix()
    if venv:
        prefixes.insert(0, venv)
    dirs = []
    for d in site.getsitepackages(prefixes):
        if os.path.isdir(d) and d not in dirs:
            dirs.append(d)
    extra = []
    mapping = re.compile(r"^MAPPING\s*(?::[^=]*)?=\s*(\{.*?\})\s*$", re.M | re.S)
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            p = os.path.join(d, name)
            if name.endswith(".pth"):
                try:
                    lines = open(p, encoding="utf-8", errors="replace").read().splitlines()
                except OSError:
                    continue
                for line in lines:
                    line = line.rstrip()
                    if line and not line.startswith(("#", "import ", "import\t")):
                        extra.append(os.path.join(d, line))
            elif name.startswith("__editable__") and name.endswith("_finder.py"):
                try:
                    m = mapping.search(open(p, encoding="utf-8", errors="replace").read())
                    for target in ast.literal_eval(m.group(1)).values() if m else ():
                        extra.append(os.path.dirname(str(target)))
                except (OSError, ValueError, SyntaxError):
                    continue
    return dirs + extra


def visible_paths():
    """What a test may read: the system's programs and libraries, this
    interpreter (its prefixes, its standard library and site-packages,
    the benchmark's library), the folders on the test's PYTHONPATH and a
    few files of /etc."""
    paths = set(p for p in SYSTEM if os.path.lexists(p))
    paths.update("/etc/" + e for e in ETC if os.path.lexists("/etc/" + e))
    for p in [sys.prefix, sys.base_prefix, sys.exec_prefix, venv_prefix()] + executable_dirs() + sys.path + \
            site_dirs() + (cfg.get("pythonpath") or []):
        if p and os.path.isabs(p) and os.path.exists(p):
            paths.add(os.path.abspath(p))
            paths.add(os.path.realpath(p))
    paths.discard("/")
    out = []
    for p in sorted(paths, key=len):
        if not any(p.startswith(q.rstrip("/") + "/") for q in out if not os.path.islink(q)):
            out.append(p)
    return out


def cover_credentials(src, root):
    """Covers what a runner leaves in a visible folder (.git with the
    checkout's token, gha-creds-*.json, .netrc, ...) with an empty,
    read-only file or folder."""
    try:
        names = os.listdir(src)
    except OSError:
        return
    for name in names:
        if not is_credential(name):
            continue
        p, dst = os.path.join(src, name), root + os.path.join(src, name)
        if os.path.islink(p) or not os.path.lexists(dst):
            continue
        if os.path.isdir(p):
            mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k")
        else:
            mount("/dev/null", dst, None, MS_BIND)
            mount(None, dst, None, MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags("/dev/null"))


def hide_file_system():
    root = os.path.join(here, ".sandbox_root")
    os.makedirs(root, exist_ok=True)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
    # First, so that the folders bound below (often under /tmp) stay
    # visible on top of them.
    size = limits.get("tmp") or 64 << 20
    for d in ("/tmp", "/dev/shm"):
        os.makedirs(root + d, exist_ok=True)
        mount("tmpfs", root + d, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=%d" % size)
    for p in visible_paths():
        bind(p, root)
        if os.path.isdir(p) and not os.path.islink(p):
            cover_credentials(p, root)
    # The test's folder is a copy on a tmpfs of the folder's size: what
    # the test writes is bounded in total and never reaches this machine
    # (its JUnit report is copied back by the namespace's parent).
    os.makedirs(root + here, exist_ok=True)
    mount("tmpfs", root + here, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=%d" % (limits.get("folder") or 512 << 20))
    import shutil
    shutil.copytree(here, root + here, symlinks=True, dirs_exist_ok=True,
                    ignore=lambda d, names: [".sandbox_root"] if os.path.realpath(d) == here else [])
    for dev in ("null", "zero", "full", "random", "urandom"):
        bind("/dev/" + dev, root, readonly=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, root + "/dev/" + name)
    os.makedirs(root + "/proc", exist_ok=True)
    try:
        mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as e:
        say("note: a /proc of its own was refused (%s); the test has no /proc" % e.strerror)
        report("note no /proc (%s)" % e.strerror)
    os.makedirs(root + "/.old", exist_ok=True)
    nr = {"x86_64": 155, "aarch64": 41, "arm64": 41}.get(os.uname().machine)
    if nr is None or libc().syscall(nr, enc(root), enc(root + "/.old")) != 0:
        raise oserror("pivot_root")
    os.chdir("/")
    if libc().umount2(b"/.old", MNT_DETACH) != 0:
        raise oserror("umount the old root")
    os.rmdir("/.old")
    mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(here)


def loopback_up():
    import fcntl
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP, IFF_RUNNING = 0x8913, 0x8914, 0x1, 0x40
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = struct.pack("16sH14s", b"lo", 0, b"\0" * 14)
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, ifr)[:18])[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP | IFF_RUNNING, b"\0" * 14))


def give_up_privileges(as_nobody):
    """Run the test without any capability over the namespaces just
    built: as nobody where it is mapped (then RLIMIT_NPROC holds too),
    otherwise in one more user namespace, where the capabilities of this
    one (over its mounts and network) are gone."""
    if as_nobody:
        os.makedirs(os.path.join(here, ".home"), exist_ok=True)
        for p in (here, os.path.join(here, ".home")):
            os.chown(p, 1, 1)
        os.setgroups([])
        os.setresgid(1, 1, 1)
        os.setresuid(1, 1, 1)
        return
    if libc().unshare(CLONE_NEWUSER) != 0:
        raise oserror("unshare(CLONE_NEWUSER)")
    for name, text in (("setgroups", "deny"), ("uid_map", "0 0 1"), ("gid_map", "0 0 1")):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)


LIMITS = {"memory": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "file_size": resource.RLIMIT_FSIZE, "processes": resource.RLIMIT_NPROC}
# Sizes of the test's tmpfs folders, not resource limits.
SIZES = ("folder", "tmp")


def set_limits():
    for name, value in limits.items():
        if value and name in LIMITS:
            resource.setrlimit(LIMITS[name], (value, value))


# ------------------------------------------------------------- the test run
def tasks():
    """How many tasks (processes and threads) this PID namespace holds,
    or 0 without a /proc."""
    n = 0
    try:
        for p in os.listdir("/proc"):
            if p.isdigit():
                try:
                    n += len(os.listdir("/proc/%s/task" % p))
                except OSError:
                    pass
    except OSError:
        return 0
    return n


def largest_file(folders):
    """The size of the largest file, counted by the blocks it really
    holds, under folders (the test's own folder, /tmp, /dev/shm)."""
    big = 0
    for top in folders:
        for d, _, files in os.walk(top):
            for f in files:
                try:
                    st = os.lstat(os.path.join(d, f))
                except OSError:
                    continue
                big = max(big, min(st.st_size, st.st_blocks * 512))
    return big


def run_pytest(first_process):
    """Starts pytest with the test's own PYTHONPATH, waits for it (as the
    PID namespace's first process, also for every orphan), reports the
    limits it ran into, and exits with its status."""
    if status_fd is not None:
        os.set_inheritable(status_fd, False)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if cfg.get("pythonpath"):
        env["PYTHONPATH"] = os.pathsep.join(cfg["pythonpath"])
    # No setuid binary or file capability raises pytest or its children
    # (a setuid-root binary would otherwise make a test root of its
    # namespaces, able to undo what hides the file system).
    try:
        prctl(PR_SET_NO_NEW_PRIVS, 1)
    except OSError as e:
        refuse("no-new-privileges (%s)" % e)
    report("ready")
    if not first_process:
        # Without a sandbox, pytest runs as this user: it must not reach
        # this process's status descriptor through /proc.
        try:
            prctl(PR_SET_DUMPABLE, 0)
        except OSError:
            pass
    polling = first_process and (limits.get("processes") or 0)
    if polling:
        # Woken by the child's exit at once, not at the next poll.
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    pid = os.fork()
    if pid == 0:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
            # The interpreter's own options (a wrapper's python -S) hold
            # for pytest too; the bootstrap's own (-I -S -B) do not.
            orig = getattr(sys, "orig_argv", [sys.executable, "-c"])
            flags = orig[1:orig.index("-c")] if "-c" in orig else []
            if flags[-3:] == ["-I", "-S", "-B"]:
                flags = flags[:-3]
            os.execve(sys.executable, [sys.executable, "-s"] + flags + argv, env)
        except OSError as e:
            say("cannot start %s: %s" % (sys.executable, e))
        finally:
            os._exit(127)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: os.kill(pid, s))
    processes = limits.get("processes") or 0
    peak = 0
    while True:
        if first_process and processes:
            peak = max(peak, tasks())
            got, status, usage = os.wait4(-1, os.WNOHANG)
            if got == 0:
                signal.sigtimedwait([signal.SIGCHLD], 0.05)
                continue
        else:
            try:
                got, status, usage = os.wait4(-1, 0)
            except InterruptedError:
                continue
        if got == pid:
            break
    if first_process and processes:
        peak = max(peak, tasks())
    hits = []
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        cpu = limits.get("cpu") or 0
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu and usage.ru_utime + usage.ru_stime >= cpu - 0.5):
            hits.append("cpu")
        say("pytest was killed by signal %d (%s)" % (sig, signal.Signals(sig).name))
    memory = limits.get("memory") or 0
    if memory and usage.ru_maxrss * 1024 >= memory // 2:
        hits.append("memory")
    file_size = limits.get("file_size") or 0
    if file_size and largest_file([here, "/tmp", "/dev/shm"] if first_process else [here]) >= file_size:
        hits.append("file_size")
    if processes and peak >= processes * 9 // 10:
        hits.append("processes")
    for h in hits:
        report("limit " + h)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def first_process(as_nobody, host_folder):
    """The PID namespace's first process: builds the sandbox, then runs
    pytest in it."""
    os.close(host_folder)
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        hide_file_system()
    except Exception as e:
        refuse("hiding the file system (%s)" % e)
    try:
        loopback_up()
    except OSError as e:
        refuse("loopback (%s)" % e.strerror)
    try:
        set_limits()
    except (ValueError, OSError) as e:
        refuse("the limits (%s)" % e)
    try:
        give_up_privileges(as_nobody)
        # pytest must not reach this process (its status descriptor,
        # its memory) through /proc or ptrace.
        prctl(PR_SET_DUMPABLE, 0)
    except OSError as e:
        refuse("giving up its privileges (%s)" % e)
    run_pytest(True)


def copy_back(host_folder, names):
    """Copies the files named (the JUnit report) from the test's folder,
    a tmpfs the test wrote, to the folder on this machine: regular files
    of at most 16 MiB, never through a link. Every process of the test
    is gone by now, so what it left cannot change while this runs; a
    folder on the way that it replaced with a link is refused."""
    if os.path.realpath(here) != here:
        say("not kept: the test replaced a folder on the way to %s" % here)
        report("note nothing was kept: the test replaced a folder on the way to its own")
        return
    for name in names:
        try:
            src = os.open(os.path.join(here, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            if e.errno != 2:
                say("not kept: %s (%s)" % (name, e.strerror))
                report("note %s was not kept (%s)" % (name, e.strerror))
            continue
        try:
            st = os.fstat(src)
            if not (st.st_mode & 0o170000 == 0o100000) or st.st_size > 16 << 20:
                say("not kept: %s (not a regular file of at most 16 MiB)" % name)
                report("note %s was not kept (not a regular file of at most 16 MiB)" % name)
                continue
            data = os.read(src, (16 << 20) + 1)
            dst = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=host_folder)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(dst, view):]
            finally:
                os.close(dst)
        except OSError as e:
            say("not kept: %s (%s)" % (name, e.strerror))
        finally:
            os.close(src)


def write_maps(child, uid, gid):
    """Maps the child's root to this user (and, as root, its uid and gid
    1 to the host's nobody, which the test runs as); True when nobody is
    mapped."""
    base = "/proc/%d/" % child
    if uid == 0:
        try:
            with open(base + "uid_map", "w") as f:
                f.write("0 0 1\n1 65534 1\n")
            with open(base + "gid_map", "w") as f:
                f.write("0 0 1\n1 65534 1\n")
            return True
        except OSError:
            pass
    with open(base + "setgroups", "w") as f:
        f.write("deny")
    with open(base + "uid_map", "w") as f:
        f.write("0 %d 1\n" % uid)
    with open(base + "gid_map", "w") as f:
        f.write("0 %d 1\n" % gid)
    return False


def exit_like(status):
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def sandboxed():
    uid, gid = os.getuid(), os.getgid()
    up_r, up_w = os.pipe()
    down_r, down_w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(up_r)
        os.close(down_w)
        try:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except OSError:
            pass
        err = 0
        if libc().unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID) != 0:
            err = ctypes.get_errno() or 1
        os.write(up_w, b"%d" % err)
        os.close(up_w)
        if err:
            os._exit(EXIT_REFUSED)
        go = os.read(down_r, 16)
        if not go.startswith(b"go"):
            os._exit(EXIT_REFUSED)
        host_folder = os.open(here, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        first = os.fork()
        if first == 0:
            first_process(go == b"go nobody", host_folder)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, lambda s, f: os.kill(first, s))
        while True:
            try:
                _, status = os.waitpid(first, 0)
                break
            except InterruptedError:
                continue
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == EXIT_REFUSED):
            copy_back(host_folder, cfg.get("keep") or [])
        exit_like(status)
    os.close(up_w)
    os.close(down_r)
    got = os.read(up_r, 16)
    if got != b"0":
        err = int(got or b"1")
        os.waitpid(child, 0)
        refuse("user, mount, network and PID namespaces (unshare: %s)" % os.strerror(err))
    try:
        nobody = write_maps(child, uid, gid)
    except OSError as e:
        os.close(down_w)
        os.waitpid(child, 0)
        refuse("the user namespace's uid and gid maps (%s)" % e)
    group = Cgroup(child)
    os.write(down_w, b"go nobody" if nobody else b"go")
    os.close(down_w)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: os.kill(child, s))
    try:
        prctl(PR_SET_DUMPABLE, 0)
    except OSError:
        pass
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    if group.oom_killed():
        report("limit memory_total")
    group.remove()
    exit_like(status)


class Cgroup:
    """A cgroup of the test's own, where this user may make one (root,
    with cgroup v2 delegating memory and pids, or v1): its memory in total
    (every process, and the tmpfs it writes) and its processes. Says on
    the channel which it got: "cgroup ..." or "nocgroup <why>"."""

    def __init__(self, child):
        self.dirs = []
        self.v2 = False
        memory, processes = limits.get("memory") or 0, limits.get("processes") or 0
        name = "benchgate-qa-%d" % os.getpid()
        try:
            mine = {}
            for line in open("/proc/self/cgroup").read().splitlines():
                _, controllers, path = line.split(":", 2)
                for c in controllers.split(",") if controllers else [""]:
                    mine[c] = path
            v2root = "/sys/fs/cgroup"
            if "" in mine and os.path.exists(v2root + "/cgroup.controllers") and not os.path.isdir(v2root + "/memory"):
                self.v2 = True
                parent = v2root + mine[""]
                enabled = open(parent + "/cgroup.subtree_control").read().split()
                if not {"memory", "pids"} <= set(enabled):
                    with open(parent + "/cgroup.subtree_control", "w") as f:
                        f.write("+memory +pids")
                d = os.path.join(parent, name)
                os.mkdir(d)
                self.dirs.append(d)
                for f, v in (("memory.max", memory), ("pids.max", processes)):
                    with open(os.path.join(d, f), "w") as fh:
                        fh.write(str(v))
                try:
                    # Absent where swap is not accounted.
                    with open(os.path.join(d, "memory.swap.max"), "w") as fh:
                        fh.write("0")
                except OSError:
                    pass
            else:
                for c, f, v in (("memory", "memory.limit_in_bytes", memory), ("pids", "pids.max", processes)):
                    if c not in mine or not os.path.isdir("/sys/fs/cgroup/" + c):
                        raise OSError(2, "no %s cgroup" % c)
                    d = os.path.join("/sys/fs/cgroup/" + c + mine[c], name)
                    os.mkdir(d)
                    self.dirs.append(d)
                    with open(os.path.join(d, f), "w") as fh:
                        fh.write(str(v))
            for d in self.dirs:
                with open(os.path.join(d, "cgroup.procs"), "w") as fh:
                    fh.write(str(child))
            report("cgroup memory %d processes %d" % (memory, processes))
        except (OSError, ValueError) as e:
            self.remove()
            report("nocgroup %s" % (e.strerror if isinstance(e, OSError) and e.strerror else e))

    def oom_killed(self):
        for d in self.dirs:
            for f in ("memory.events", "memory.oom_control"):
                try:
                    for line in open(os.path.join(d, f)):
                        k, _, v = line.partition(" ")
                        if k == "oom_kill" and int(v) > 0:
                            return True
                except (OSError, ValueError):
                    pass
        return False

    def remove(self):
        for d in self.dirs:
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.02)
        self.dirs = []


if cfg.get("sandbox"):
    sandboxed()
# No sandbox of its own (a container, or --sandbox none): the limits,
# then pytest in the test's folder.
os.chdir(here)
try:
    set_limits()
except (ValueError, OSError) as e:
    refuse("the limits (%s)" % e)
run_pytest(False)
