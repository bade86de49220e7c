package dev.idempotentrelay.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;

/** The properties file of {@code --config FILE}; one that cannot be read is refused in one line naming it. */
final class ConfigFile {

    private ConfigFile() {
    }

    static Properties read(String command, Path file) throws UsageException {
        if (Files.isDirectory(file)) {
            throw new UsageException(command + ": --config " + file + " is a folder, not a properties file");
        }
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (NoSuchFileException e) {
            throw new UsageException(command + ": --config " + file + ": no such file");
        } catch (AccessDeniedException e) {
            throw new UsageException(command + ": --config " + file + " cannot be read: permission denied");
        } catch (IOException e) {
            throw new UsageException(command + ": --config " + file + " cannot be read: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            // a malformed \\uXXXX escape
            throw new UsageException(command + ": --config " + file + " is not a properties file: " + e.getMessage());
        }
        return properties;
    }
}
