<?php

// Toolmark's settings (published to config/toolmark.php by `php artisan toolmark:install`).
return [
    // How long the page has to answer each call or describe, in ms. Later results are rejected
    // ("late"); the agent gets a timeout result and the page a `cancel`.
    'deadline_ms' => (int) env('TOOLMARK_DEADLINE_MS', 15000),

    // How long the approval of a confirmation is accepted, in minutes (11, as @toolmark/server; the
    // page's own expiry is 10). A `confirmed` after it is refused and the agent told the confirmation
    // expired; `toolmark:prune` expires older pending ones. Null: no server-side limit.
    'confirm_expiry_minutes' => \Toolmark\Laravel\Generated\Wire::CONFIRM_TTL_MS / 60000,

    // How long a user's message waits, in ms, for the conversation's page while it is loading (its
    // Echo client authorized the private channel in the last 10 s, its first manifest not stored yet),
    // so the model sees the page's tools. 0 never waits; with no page loading nothing waits. The
    // mark is kept in the app's cache: use a store all web and queue workers share.
    'page_wait_ms' => (int) env('TOOLMARK_PAGE_WAIT_MS', 2000),

    // Caps on what one user can make the server keep.
    'limits' => [
        // The chat message route: a larger request body is refused with 413 `body_too_large`.
        'message_bytes' => 65536,
        // The chat message route: a longer text (UTF-16 code units, as a page's `maxlength`) is
        // refused with 400 `message_too_long`, as @toolmark/server.
        'message_length' => 4000,
        // Agent turns of one user's messages queued or running, in all their conversations (a turn
        // that has not ended after 15 minutes stops counting): one more message is refused with 429
        // `too_many_turns`, `Retry-After: 5`, and not stored. Null: no cap.
        'turns_per_user' => 8,
        // Conversations per user, as @toolmark/server's maxConversationsPerUser: starting one more
        // throws LimitExceeded (429 `too_many_conversations`) and nothing is deleted. Null: no cap.
        'conversations_per_user' => 1000,
    ],

    // `php artisan toolmark:prune` deletes answered or timed-out calls older than this.
    'prune_calls_after_days' => 7,

    // The user model conversations belong to (default: the `users` provider's model).
    'user_model' => null,

    // The session key holding the signed-in user's current conversation id.
    'session_key' => 'toolmark_conversation_id',

    // The package's routes, all under `middleware` (keep `web` for the session and the CSRF check,
    // and your app's auth middleware). Set `enabled` to false and call Route::toolmark() in your own
    // route file to place them yourself. A path set to null is not registered.
    'routes' => [
        'enabled' => true,
        'middleware' => ['web', 'auth'],
        // The page's bridge POSTs (results, manifests, confirmed).
        'bridge' => 'toolmark/bridge/{conversation}',
        // The page's unload signal: its pending confirmations expire at once.
        'gone' => 'toolmark/gone/{conversation}',
        // The chat: the user's message starts an agent turn. Null if your app has its own.
        'messages' => 'toolmark/conversations/{conversation}/messages',
        // The user's grants (remembered approvals): GET and POST here, DELETE here/{grant}. Null: not registered.
        'grants' => 'toolmark/grants',
    ],

    // Broadcast every new chat line (masked text only) as `.toolmark.chat` on the conversation's
    // channel, the agent's streamed text as `.toolmark.delta` (see `stream`) and each page call the
    // agent makes as `.toolmark.tool` (running, waiting, done, failed or cancelled).
    'chat_events' => true,

    // The agent's reply as it streams (with chat_events on, for a model that streams: the bundled
    // OpenAI-compatible one does), masked like the stored line: `.toolmark.delta` `{messageId, delta}`,
    // in batches, never one event per token. A batch goes out when a model delta arrives at least
    // `interval_ms` after the last batch, or once `max_bytes` of new text came in since it; no event
    // carries more than `max_bytes` of JSON text (at least 64, at most 8000: Pusher and Reverb refuse
    // events over 10 KB). A text that may still turn into a secret (a card number still growing, a
    // code after "CVC") is held back until it is decided. The stored line (`.toolmark.chat`, with
    // the same messageId) ends the stream and wins over it.
    'stream' => [
        'enabled' => true,
        'interval_ms' => 100,
        'max_bytes' => 2048,
    ],

    // What the page's Echo factory gets as `toolmark.broadcaster` (never a secret): the public key
    // and where the Pusher-protocol server listens (Pusher, or Reverb/soketi with PUSHER_HOST set).
    // Unset values are left out, so Echo keeps its own defaults.
    'broadcaster' => array_filter([
        'key' => env('PUSHER_APP_KEY'),
        'cluster' => env('PUSHER_APP_CLUSTER'),
        'wsHost' => env('PUSHER_HOST'),
        'wsPort' => env('PUSHER_PORT') === null ? null : (int) env('PUSHER_PORT'),
        'wssPort' => env('PUSHER_PORT') === null ? null : (int) env('PUSHER_PORT'),
        'forceTLS' => env('PUSHER_SCHEME') === null ? null : env('PUSHER_SCHEME') === 'https',
    ], fn ($value) => $value !== null),

    // The agent loop's model: any OpenAI-compatible Chat Completions endpoint.
    'llm' => [
        'base_url' => env('TOOLMARK_LLM_URL', 'https://api.openai.com/v1'),
        'api_key' => env('OPENAI_API_KEY'),
        'model' => env('TOOLMARK_LLM_MODEL', 'gpt-4o-mini'),
        'timeout' => 60,
    ],
];
