<?php

namespace Toolmark\Laravel;

use Illuminate\Support\Facades\Cache;

/**
 * A per-second limit kept in the cache, shared by every worker: how many messages of one kind a page load may
 * send each second (progress, context).
 */
final class PerSecond
{
    /**
     * Takes one of the current second's `$max` slots for `$kind` and the page load `$clientId`; false when all are
     * taken. A slot is taken with the cache's `add`, which is atomic on every store (the file store locks the
     * file). A counter alone is not: its `increment` is a read and a write on the file and database stores, so
     * concurrent workers lose counts and let more than `$max` through.
     */
    public static function take(string $kind, string $clientId, int $max): bool
    {
        $window = 'toolmark:'.$kind.':'.hash('sha256', $clientId).':'.intdiv((int) floor(microtime(true) * 1000), 1000);
        // The counter says where to start looking (a lost count only starts the search lower) and, past the
        // limit, ends a storm's message after two cache calls.
        Cache::add($window, 0, 2);
        for ($slot = max(1, (int) Cache::increment($window)); $slot <= $max; $slot++) {
            if (Cache::add($window.':'.$slot, 1, 2)) {
                return true;
            }
        }

        return false;
    }
}
