<?php

return [
    'default' => 'recording',
    'connections' => [
        'recording' => ['driver' => 'recording'],
        'redis' => ['driver' => 'redis', 'connection' => 'default'],
    ],
];
