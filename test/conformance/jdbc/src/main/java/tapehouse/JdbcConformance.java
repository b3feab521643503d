package tapehouse;

import java.io.FileWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * clickhouse-jdbc (the version pom.xml pins), default settings, against a running `tapehouse run`:
 * connect, select, a prepared statement with the hostile strings as parameters,
 * DatabaseMetaData.getTables / getColumns, a large compressed read. Ends with 'N passed, N failed'.
 */
public final class JdbcConformance {
    private static int passed;
    private static int failed;

    interface Check {
        void run(Connection connection) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        String url = System.getenv("TAPEHOUSE_CONFORMANCE_URL").replaceFirst("^http://", "jdbc:clickhouse://") + "/tapehouse";
        String dir = System.getenv("TAPEHOUSE_CONFORMANCE_DIR");
        List<String> hostile = hostileStrings(Path.of(args[0]));
        Properties properties = new Properties();
        properties.setProperty("user", "default");
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            check("connect and select", connection, c -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count() AS n, max(executed_at) AS last FROM trades")) {
                    expect(rs.next(), "a row");
                    expect(rs.getLong("n") > 0, "trades were loaded");
                    expect(rs.getTimestamp("last") != null, "a time");
                }
            });
            check("prepared statement with hostile strings", connection, c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT ? AS s, length(?) AS n")) {
                    for (String value : hostile) {
                        ps.setString(1, value);
                        ps.setString(2, value);
                        try (ResultSet rs = ps.executeQuery()) {
                            expect(rs.next(), "a row");
                            expect(value.equals(rs.getString("s")), "round trip of " + value + ": " + rs.getString("s"));
                            expect(rs.getLong("n") == value.getBytes(StandardCharsets.UTF_8).length, "length of " + value);
                        }
                    }
                }
            });
            check("prepared statement with typed parameters", connection, c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT count() FROM trades WHERE price_micro >= ? AND token_id != ?")) {
                    ps.setLong(1, 0L);
                    ps.setString(2, "none");
                    try (ResultSet rs = ps.executeQuery()) {
                        expect(rs.next() && rs.getLong(1) > 0, "rows");
                    }
                }
            });
            check("DatabaseMetaData.getTables", connection, c -> {
                DatabaseMetaData meta = c.getMetaData();
                List<String> tables = new ArrayList<>();
                try (ResultSet rs = meta.getTables(null, "tapehouse", "%", null)) {
                    while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
                }
                expect(tables.contains("trades") && tables.contains("book_changes") && tables.contains("candles_1m"), "tables: " + tables);
            });
            check("DatabaseMetaData.getColumns", connection, c -> {
                List<String> columns = new ArrayList<>();
                try (ResultSet rs = c.getMetaData().getColumns(null, "tapehouse", "trades", "%")) {
                    while (rs.next()) columns.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME"));
                }
                expect(columns.contains("price_micro Int64"), "columns: " + columns);
            });
            check("a large read in compressed blocks", connection, c -> {
                long rows = 0;
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT number, toString(number) FROM numbers(1500000)")) {
                    while (rs.next()) rows++;
                }
                expect(rows == 1_500_000, "rows " + rows);
            });
            check("a write is refused", connection, c -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE tapehouse.trades");
                    throw new AssertionError("DROP TABLE was not refused");
                } catch (SQLException e) {
                    expect(String.valueOf(e.getMessage()).contains("READONLY"), "READONLY: " + e.getMessage());
                }
            });
        } catch (SQLException e) {
            failed++;
            System.out.println("FAIL connect: " + e);
        }
        try (FileWriter tally = new FileWriter(dir + "/tally.tsv", StandardCharsets.UTF_8, true)) {
            tally.write("clickhouse-jdbc 0.11.0\t" + (passed + failed) + "\t" + passed + "\t\n");
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static void check(String name, Connection connection, Check check) {
        try {
            check.run(connection);
            passed++;
            System.out.println("ok   " + name);
        } catch (Throwable e) {
            failed++;
            System.out.println("FAIL " + name + ": " + e);
        }
    }

    private static void expect(boolean condition, String what) {
        if (!condition) throw new AssertionError(what);
    }

    /** hostile-strings.json: a flat JSON array of strings. */
    private static List<String> hostileStrings(Path file) throws Exception {
        String text = Files.readString(file, StandardCharsets.UTF_8).trim();
        List<String> values = new ArrayList<>();
        StringBuilder current = null;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (current == null) {
                if (ch == '"') current = new StringBuilder();
                continue;
            }
            if (ch == '"') {
                values.add(current.toString());
                current = null;
            } else if (ch == '\\') {
                char e = text.charAt(++i);
                switch (e) {
                    case 'n' -> current.append('\n');
                    case 't' -> current.append('\t');
                    case 'r' -> current.append('\r');
                    case 'u' -> {
                        current.append((char) Integer.parseInt(text.substring(i + 1, i + 5), 16));
                        i += 4;
                    }
                    default -> current.append(e);
                }
            } else {
                current.append(ch);
            }
        }
        return values;
    }
}
