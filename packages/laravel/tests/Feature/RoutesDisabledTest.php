<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Route;
use Toolmark\Laravel\Tests\TestCase;

/** With `toolmark.routes.enabled` false the package registers no route; Route::toolmark() places them. */
final class RoutesDisabledTest extends TestCase
{
    protected function config(): array
    {
        $config = require __DIR__.'/../../config/toolmark.php';
        $config['routes']['enabled'] = false;

        return ['toolmark' => $config];
    }

    public function test_no_route_until_the_app_places_them_with_route_toolmark(): void
    {
        foreach (['toolmark.bridge', 'toolmark.gone', 'toolmark.messages'] as $name) {
            $this->assertFalse(Route::has($name), $name);
        }
        Route::middleware(['web', 'auth'])->prefix('api')->group(fn () => Route::toolmark());
        $this->assertSame(
            ['api/toolmark/bridge/{conversation}', 'api/toolmark/gone/{conversation}', 'api/toolmark/conversations/{conversation}/messages'],
            array_map(fn (string $name): string => Route::getRoutes()->getByName($name)->uri(), ['toolmark.bridge', 'toolmark.gone', 'toolmark.messages']),
        );
    }
}
