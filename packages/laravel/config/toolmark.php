<?php

// Toolmark's settings (published to config/toolmark.php by `php artisan toolmark:install`).
return [
    // How long the page has to answer each call or describe, in ms. Later results are rejected
    // ("late"); the agent gets a timeout result and the page a `cancel`.
    'deadline_ms' => (int) env('TOOLMARK_DEADLINE_MS', 15000),

    // Pending confirmations older than this count as expired (the page's own expiry is 10 minutes).
    'confirm_expiry_minutes' => 11,

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
    ],

    // Broadcast every new chat line (masked text only) as `.toolmark.chat` on the conversation's channel.
    'chat_events' => true,

    // What the page's Echo factory gets as `toolmark.broadcaster` (never a secret).
    'broadcaster' => [],

    // The agent loop's model: any OpenAI-compatible Chat Completions endpoint.
    'llm' => [
        'base_url' => env('TOOLMARK_LLM_URL', 'https://api.openai.com/v1'),
        'api_key' => env('OPENAI_API_KEY'),
        'model' => env('TOOLMARK_LLM_MODEL', 'gpt-4o-mini'),
        'timeout' => 60,
    ],
];
