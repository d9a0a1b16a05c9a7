<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Testing\TestResponse;
use Toolmark\Laravel\Models\Grant;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;

/** The grants routes: each signed-in user lists, stores and revokes their own remembered approvals. */
final class GrantsTest extends TestCase
{
    private function send(User $user, string $method, string $path, array|string|null $body = null): TestResponse
    {
        return $this->actingAs($user)
            ->withSession(['_token' => 'csrf-token'])
            ->call($method, $path, [], [], [], [
                'HTTP_X_CSRF_TOKEN' => 'csrf-token',
                'CONTENT_TYPE' => 'application/json',
                'HTTP_ACCEPT' => 'application/json',
            ], $body === null ? null : (is_string($body) ? $body : json_encode($body)));
    }

    private function grant(array $extra = []): array
    {
        return ['tool' => 'notes.add', 'fingerprint' => '0123456789abcdef', 'caller' => 'inapp', 'expiresAt' => $this->now() + 86_400_000, ...$extra];
    }

    private function now(): int
    {
        return (int) floor(microtime(true) * 1000);
    }

    public function test_a_user_stores_lists_and_revokes_their_own_grants_and_other_users_see_none(): void
    {
        $ada = $this->user('ada');
        $bob = $this->user('bob');
        $created = $this->send($ada, 'POST', '/toolmark/grants', $this->grant(['title' => 'Add note']))->assertStatus(201);
        $grant = $created->json('grant');
        $this->assertSame(['tool' => 'notes.add', 'title' => 'Add note', 'fingerprint' => '0123456789abcdef', 'caller' => 'inapp'], array_intersect_key($grant, array_flip(['tool', 'title', 'fingerprint', 'caller'])));
        $this->assertIsString($grant['id']);
        $this->assertIsInt($grant['createdAt']);
        $this->send($ada, 'GET', '/toolmark/grants')->assertOk()->assertExactJson(['grants' => [$grant]]);
        $this->send($bob, 'GET', '/toolmark/grants')->assertOk()->assertExactJson(['grants' => []]);

        $this->send($bob, 'DELETE', "/toolmark/grants/{$grant['id']}")->assertStatus(404);
        $this->send($ada, 'DELETE', "/toolmark/grants/{$grant['id']}")->assertNoContent();
        $this->send($ada, 'GET', '/toolmark/grants')->assertExactJson(['grants' => []]);
    }

    public function test_a_newer_grant_replaces_the_one_for_the_same_tool_caller_and_conversation_and_expired_ones_are_not_listed(): void
    {
        $ada = $this->user('ada');
        $this->send($ada, 'POST', '/toolmark/grants', $this->grant())->assertStatus(201);
        $this->send($ada, 'POST', '/toolmark/grants', $this->grant(['fingerprint' => 'fedcba9876543210']))->assertStatus(201);
        $this->send($ada, 'POST', '/toolmark/grants', $this->grant(['caller' => 'mcp']))->assertStatus(201);
        $listed = $this->send($ada, 'GET', '/toolmark/grants')->json('grants');
        $this->assertSame([['mcp', '0123456789abcdef'], ['inapp', 'fedcba9876543210']], array_map(fn ($g) => [$g['caller'], $g['fingerprint']], $listed));

        Grant::query()->where('caller', 'mcp')->update(['expires_at' => $this->now() - 1]);
        $this->assertCount(1, $this->send($ada, 'GET', '/toolmark/grants')->json('grants'));
    }

    public function test_a_conversation_grant_needs_one_of_the_users_own_conversations(): void
    {
        $ada = $this->user('ada');
        $bob = $this->user('bob');
        $chat = $this->conversation($ada);
        $body = $this->grant(['conversation' => (string) $chat->id]);
        unset($body['expiresAt']);
        $this->send($ada, 'POST', '/toolmark/grants', $body)->assertStatus(201)->assertJsonPath('grant.conversation', (string) $chat->id);
        $this->send($bob, 'POST', '/toolmark/grants', $body)->assertStatus(404)
            ->assertExactJson(['error' => ['code' => 'not_found', 'message' => 'No such conversation']]);
    }

    public function test_what_is_not_a_grant_is_refused_with_400_invalid_grant(): void
    {
        $ada = $this->user('ada');
        $bad = [
            'not json',
            [1, 2],
            $this->grant(['tool' => 'bad name!']),
            $this->grant(['fingerprint' => 'XYZ']),
            $this->grant(['caller' => 'human']),
            $this->grant(['expiresAt' => $this->now() - 1]),
            $this->grant(['expiresAt' => $this->now() + 366 * 86_400_000]),
            array_diff_key($this->grant(), ['expiresAt' => true]),
            $this->grant(['title' => str_repeat('x', 201)]),
            $this->grant(['secret' => 'sk-123']),
        ];
        foreach ($bad as $body) {
            $this->send($ada, 'POST', '/toolmark/grants', $body)->assertStatus(400)->assertJsonPath('error.code', 'invalid_grant');
        }
        $this->assertSame(0, Grant::query()->count());
    }

    public function test_guests_and_requests_without_the_csrf_token_are_refused(): void
    {
        $this->call('GET', '/toolmark/grants', [], [], [], ['HTTP_ACCEPT' => 'application/json'])->assertStatus(401);
        $ada = $this->user('ada');
        $this->actingAs($ada)->call('POST', '/toolmark/grants', [], [], [], ['HTTP_ACCEPT' => 'application/json', 'CONTENT_TYPE' => 'application/json'], json_encode($this->grant()))->assertStatus(419);
        $this->assertSame(0, Grant::query()->count());
    }

    public function test_a_users_grants_go_with_the_user(): void
    {
        $ada = $this->user('ada');
        $this->send($ada, 'POST', '/toolmark/grants', $this->grant())->assertStatus(201);
        $ada->delete();
        $this->assertSame(0, Grant::query()->count());
    }
}
