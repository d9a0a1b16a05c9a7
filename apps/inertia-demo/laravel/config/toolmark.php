<?php

return [
    // Deadline of each page call (Security MUST 5).
    'deadline_ms' => (int) env('TOOLMARK_DEADLINE_MS', 15000),
    // OpenAI-compatible Chat Completions: the agent server's embedded planner offline, the real provider with a key.
    'llm' => [
        'base_url' => env('OPENAI_API_KEY') ? env('OPENAI_BASE_URL', 'https://api.openai.com/v1') : env('TOOLMARK_LLM_URL', 'http://127.0.0.1:8787/v1'),
        'api_key' => env('OPENAI_API_KEY', 'offline'),
        'model' => env('OPENAI_MODEL', env('OPENAI_API_KEY') ? 'gpt-4o-mini' : 'embedded'),
    ],
];
