<?php

return [
    'default' => 'recording',
    'connections' => ['recording' => ['driver' => 'recording']],
];
