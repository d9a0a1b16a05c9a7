<?php

namespace Inertia;

/**
 * STAND-IN for inertia-laravel's `Inertia\Inertia` facade (Composer-only): records what is shared,
 * so the package's middleware can be tested. Loaded only by the test that needs it.
 */
final class Inertia
{
    /** @var array<string, mixed> */
    public static array $shared = [];

    public static function share(string $key, mixed $value): void
    {
        self::$shared[$key] = $value;
    }
}
