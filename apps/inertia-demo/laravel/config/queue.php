<?php

return [
    // toolmark/laravel's jobs (deadlines, agent turns) run in `php artisan queue:work` (scripts/serve.ts starts it).
    'default' => env('QUEUE_CONNECTION', 'database'),
    'connections' => [
        'sync' => ['driver' => 'sync'],
        'database' => ['driver' => 'database', 'table' => 'jobs', 'queue' => 'default', 'retry_after' => 90, 'after_commit' => false],
    ],
    'failed' => ['driver' => 'null'],
];
