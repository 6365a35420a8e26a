import socket
import threading


def echo(data):
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]

    def serve():
        conn, _ = srv.accept()
        with conn:
            conn.sendall(conn.recv(64))

    threading.Thread(target=serve, daemon=True).start()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(data)
        return c.recv(64)
