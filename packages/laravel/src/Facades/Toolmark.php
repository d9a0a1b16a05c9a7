<?php

namespace Toolmark\Laravel\Facades;

use Illuminate\Http\Request;
use Illuminate\Support\Facades\Facade;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Testing\ToolmarkFake;
use Toolmark\Laravel\Toolmark as Manager;

/**
 * @method static string|null call(Conversation $conversation, string $tool, array $input = [])
 * @method static bool allows(Conversation $conversation, string $tool)
 * @method static string|null send(Conversation $conversation, string $toolCallId, string $kind, string $tool, array $input = [], ?int $rev = null, string $origin = 'agent')
 * @method static Conversation|null currentConversation(Request $request)
 * @method static Conversation startConversation(\Illuminate\Contracts\Auth\Authenticatable $user, ?Request $request = null)
 * @method static array|null sharedProps(Request $request)
 *
 * @see Manager
 */
final class Toolmark extends Facade
{
    /**
     * Replaces the package with a fake for the app's tests: nothing is broadcast, every call is
     * recorded (bindings are still stored), and `respond()` answers a tool as the page would.
     */
    public static function fake(): ToolmarkFake
    {
        $fake = static::$app->make(ToolmarkFake::class);
        static::swap($fake);
        static::$app->instance(Manager::class, $fake);

        return $fake;
    }

    protected static function getFacadeAccessor(): string
    {
        return Manager::class;
    }
}
