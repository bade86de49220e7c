package dev.idempotentrelay.support;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A process for which read-only files and folders are read-only. A test that runs as root (as CI does on a fresh
 * machine) cannot be denied a write by file permissions, so such a process runs as {@code nobody} through
 * util-linux's {@code setpriv}; as any other user it runs as that user.
 */
public final class Unprivileged {

    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static final String NOBODY = "65534";

    private Unprivileged() {
    }

    /** Whether this JVM runs as root, whom permissions do not bind. */
    public static boolean needed() {
        return new UnixSystem().getUid() == 0;
    }

    /** Whether a process can be started for which permissions hold. */
    public static boolean available() {
        return !needed() || Files.isExecutable(SETPRIV);
    }

    /** The command words that run the rest of a command line as nobody. */
    static List<String> prefix() {
        return List.of(SETPRIV.toString(), "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--");
    }

    /** Lets another user list and read {@code dir} (a JUnit temporary folder is its owner's alone). */
    public static void letOthersRead(Path dir) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** Lets another user create files in {@code dir} as well. */
    public static void letOthersWrite(Path dir) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    }
}
