<?php

namespace Toolmark\Laravel\Tests\Feature;

use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;

/** The private channel toolmark.{user}.{conversation}: only its user, only for their own conversation. */
final class ChannelTest extends TestCase
{
    private function subscribe(User $as, string $channel): int
    {
        return $this->actingAs($as)->withSession(['_token' => 't'])
            ->post('/broadcasting/auth', ['channel_name' => $channel, 'socket_id' => '1.1', '_token' => 't'])
            ->status();
    }

    public function test_the_owner_may_subscribe_and_nobody_else(): void
    {
        $ada = $this->user('ada');
        $bob = $this->user('bob');
        $chat = $this->conversation($ada, null);
        $bobs = $this->conversation($bob, null);
        $this->assertSame(200, $this->subscribe($ada, "private-toolmark.{$ada->id}.{$chat->id}"));
        $this->assertSame(403, $this->subscribe($bob, "private-toolmark.{$ada->id}.{$chat->id}"), "another user on the owner's channel");
        $this->assertSame(403, $this->subscribe($bob, "private-toolmark.{$bob->id}.{$chat->id}"), "their own user id, someone else's conversation");
        $this->assertSame(403, $this->subscribe($ada, "private-toolmark.{$ada->id}.{$bobs->id}"));
        $this->assertSame(403, $this->subscribe($ada, "private-toolmark.{$ada->id}.999"), 'an unknown conversation');
        $this->assertSame(403, $this->subscribe($ada, "toolmark.{$ada->id}.{$chat->id}"), 'never a public channel');
    }

    public function test_the_user_id_is_compared_as_a_string(): void
    {
        $ada = $this->user('ada');
        $chat = $this->conversation($ada, null);
        $this->assertSame(403, $this->subscribe($ada, "private-toolmark.0{$ada->id}.{$chat->id}"));
        $this->assertSame(403, $this->subscribe($ada, "private-toolmark.{$ada->id}0.{$chat->id}"));
    }
}
