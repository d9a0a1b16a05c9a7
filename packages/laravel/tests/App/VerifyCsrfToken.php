<?php

namespace Toolmark\Laravel\Tests\App;

use Illuminate\Foundation\Http\Middleware\VerifyCsrfToken as Middleware;

/**
 * TEST APP: Laravel's CSRF check, also under PHPUnit (Laravel skips it when the environment is
 * `testing`; the test app runs as `production` anyway, so this only documents the intent).
 */
final class VerifyCsrfToken extends Middleware
{
    protected function runningUnitTests()
    {
        return false;
    }
}
