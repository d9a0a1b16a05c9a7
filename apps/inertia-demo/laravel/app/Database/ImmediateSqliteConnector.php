<?php

namespace App\Database;

use Illuminate\Database\Connectors\SQLiteConnector;
use PDO;

/**
 * SQLite glue for the demo (several `php -S` workers and a queue worker on one file): transactions
 * start with BEGIN IMMEDIATE, so a writer waits for the lock (the busy timeout) up front instead of
 * failing with "database is locked" when a read transaction tries to write. Bound as
 * `db.connector.sqlite`; MySQL and PostgreSQL need nothing like it.
 */
final class ImmediateSqliteConnector extends SQLiteConnector
{
    protected function createPdoConnection($dsn, $username, $password, $options)
    {
        return new ImmediatePdo($dsn, $username, $password, $options);
    }
}

/** A PDO whose transactions are BEGIN IMMEDIATE … COMMIT. */
final class ImmediatePdo extends PDO
{
    private bool $open = false;

    public function beginTransaction(): bool
    {
        $this->exec('BEGIN IMMEDIATE');

        return $this->open = true;
    }

    public function commit(): bool
    {
        $this->exec('COMMIT');
        $this->open = false;

        return true;
    }

    public function rollBack(): bool
    {
        $this->exec('ROLLBACK');
        $this->open = false;

        return true;
    }

    public function inTransaction(): bool
    {
        return $this->open;
    }
}
