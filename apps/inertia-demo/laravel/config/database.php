<?php

return [
    'default' => 'sqlite',
    'connections' => [
        'sqlite' => [
            'driver' => 'sqlite',
            'database' => env('DB_DATABASE', database_path('database.sqlite')),
            'prefix' => '',
            'foreign_key_constraints' => true,
            // The web workers and the queue worker share the file: wait for locks instead of failing.
            'options' => [PDO::ATTR_TIMEOUT => 10],
        ],
    ],
    'migrations' => 'migrations',
];
