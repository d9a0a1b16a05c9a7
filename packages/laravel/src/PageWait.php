<?php

namespace Toolmark\Laravel;

use Illuminate\Support\Facades\Cache;
use Toolmark\Laravel\Models\Conversation;

/**
 * A page that is loading: its Echo client authorized the conversation's private channel, and its
 * first manifest has not been stored yet. A user's message sent then waits for that manifest, up to
 * `toolmark.page_wait_ms`, so the model sees the page's tools (as @toolmark/server's `pageWaitMs`).
 *
 * The mark lives in the app's cache (a store every web and queue worker shares), per user and
 * conversation, for CONNECTING_TTL_SECONDS. The channel authorization sets it; any manifest the
 * bridge accepts for that user and conversation clears it. With no mark nothing waits. If the cache
 * fails, the message goes on without waiting.
 */
class PageWait
{
    /** How long a channel authorization counts as a page that is loading, in seconds. */
    public const CONNECTING_TTL_SECONDS = 10;

    /** How often the wait looks again, in milliseconds. */
    public const POLL_MS = 50;

    /** Marks a page of the user's conversation as loading (its private channel was just authorized). */
    public static function connecting(int|string $userId, int|string $conversationId): void
    {
        try {
            Cache::put(self::key($userId, $conversationId), true, self::CONNECTING_TTL_SECONDS);
        } catch (\Throwable $error) {
            report($error);
        }
    }

    /** Clears the mark: a manifest of the user's conversation was stored. */
    public static function arrived(int|string $userId, int|string $conversationId): void
    {
        try {
            Cache::forget(self::key($userId, $conversationId));
        } catch (\Throwable $error) {
            report($error);
        }
    }

    /** Whether a page of the user's conversation is loading (authorized, no manifest since). False when the cache fails. */
    public static function isConnecting(int|string $userId, int|string $conversationId): bool
    {
        try {
            return Cache::has(self::key($userId, $conversationId));
        } catch (\Throwable) {
            return false;
        }
    }

    /**
     * Waits while a page of the conversation is loading, at most `toolmark.page_wait_ms` (default
     * 2000; 0 never waits), looking every POLL_MS. Returns the conversation as stored afterwards
     * (bound to the new page load when its manifest arrived). Returns at once when no page is loading.
     */
    public function await(Conversation $conversation): Conversation
    {
        $waitMs = max(0, (int) config('toolmark.page_wait_ms', 2000));
        $until = hrtime(true) + $waitMs * 1_000_000;
        $waited = false;
        while (hrtime(true) < $until && self::isConnecting($conversation->user_id, $conversation->id)) {
            $this->pause(self::POLL_MS);
            $waited = true;
        }

        return $waited ? $conversation->refresh() : $conversation;
    }

    /** Sleeps between two looks (tests replace it). */
    protected function pause(int $ms): void
    {
        usleep($ms * 1000);
    }

    private static function key(int|string $userId, int|string $conversationId): string
    {
        return "toolmark:connecting:{$userId}:{$conversationId}";
    }
}
