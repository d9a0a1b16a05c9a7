<?php

return [
    'default' => 'sqlite',
    'connections' => [
        'sqlite' => ['driver' => 'sqlite', 'database' => ':memory:', 'prefix' => '', 'foreign_key_constraints' => true],
    ],
    'migrations' => 'migrations',
    // Used by the Redis test only, which starts its own redis-server on TOOLMARK_TEST_REDIS_PORT.
    'redis' => [
        'client' => 'phpredis',
        'options' => ['prefix' => ''],
        'default' => ['host' => '127.0.0.1', 'port' => 6379, 'database' => 0],
    ],
];
