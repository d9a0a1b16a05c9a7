<?php

// The demo's copy of the package's config (`php artisan toolmark:install` publishes it).
return [
    'deadline_ms' => (int) env('TOOLMARK_DEADLINE_MS', 15000),
    'confirm_expiry_minutes' => 11,
    'prune_calls_after_days' => 7,
    'user_model' => App\Models\User::class,
    'session_key' => 'conversation_id',
    'routes' => [
        'enabled' => true,
        'middleware' => ['web', 'auth'],
        'bridge' => 'toolmark/bridge/{conversation}',
        'gone' => 'toolmark/gone/{conversation}',
        // Where the demo's chat panel posts.
        'messages' => 'conversations/{conversation}/messages',
    ],
    'chat_events' => true,
    // The agent's reply streamed in batches (`.toolmark.delta`), as the package's defaults.
    'stream' => ['enabled' => true, 'interval_ms' => 100, 'max_bytes' => 2048],
    // The Pusher-protocol server the page's Echo connects to (no secret).
    'broadcaster' => [
        'key' => env('PUSHER_APP_KEY', 'demo-key'),
        'wsHost' => env('PUSHER_HOST', '127.0.0.1'),
        'wsPort' => (int) env('PUSHER_PORT', 6001),
    ],
    // OpenAI-compatible Chat Completions: the agent server's embedded planner offline, the real provider with a key.
    'llm' => [
        'base_url' => env('OPENAI_API_KEY') ? env('OPENAI_BASE_URL', 'https://api.openai.com/v1') : env('TOOLMARK_LLM_URL', 'http://127.0.0.1:8787/v1'),
        'api_key' => env('OPENAI_API_KEY', 'offline'),
        'model' => env('OPENAI_MODEL', env('OPENAI_API_KEY') ? 'gpt-4o-mini' : 'embedded'),
        'timeout' => 60,
    ],
];
