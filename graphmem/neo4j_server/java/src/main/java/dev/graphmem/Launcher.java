package dev.graphmem;

import java.nio.file.Files;
import java.nio.file.Path;

import org.neo4j.cli.AdminTool;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.server.CommunityEntryPoint;

/**
 * Starts a Neo4j Community server (Bolt, HTTP and Browser) from jars on the class path.
 *
 * <p>Usage: {@code Launcher <home-dir> <config-dir>}. When the environment variable
 * GRAPHMEM_NEO4J_INITIAL_PASSWORD is set and no user store exists yet, the password of the
 * {@code neo4j} user is set first, exactly as {@code neo4j-admin dbms set-initial-password}
 * would do. The server then runs in this JVM until it receives SIGTERM, on which Neo4j's own
 * shutdown hook closes the databases cleanly.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Launcher <home-dir> <config-dir>");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        Path conf = Path.of(args[1]).toAbsolutePath();
        String password = System.getenv("GRAPHMEM_NEO4J_INITIAL_PASSWORD");
        Path authStore = home.resolve("data").resolve("dbms").resolve("auth.ini");
        if (password != null && !password.isEmpty() && !Files.exists(authStore)) {
            int rc = AdminTool.execute(
                    new ExecutionContext(home, conf), "dbms", "set-initial-password", password);
            if (rc != 0) {
                System.err.println("graphmem: setting the initial password failed (exit " + rc + ")");
                System.exit(rc);
            }
        }
        CommunityEntryPoint.main(new String[] {"--home-dir=" + home, "--config-dir=" + conf});
    }
}
