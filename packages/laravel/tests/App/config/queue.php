<?php

return [
    'default' => 'database',
    'connections' => [
        'sync' => ['driver' => 'sync'],
        'database' => ['driver' => 'database', 'table' => 'jobs', 'queue' => 'default', 'retry_after' => 90],
    ],
    'failed' => ['driver' => 'null'],
];
