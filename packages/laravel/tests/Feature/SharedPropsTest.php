<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Http\Request;
use Toolmark\Laravel\Facades\Toolmark;
use Toolmark\Laravel\Http\Middleware\ShareToolmarkProps;
use Toolmark\Laravel\Tests\TestCase;

/** What the app shares with Inertia for @toolmark/inertia, and the chat endpoint's owner check. */
final class SharedPropsTest extends TestCase
{
    private function request(?object $user): Request
    {
        $request = Request::create('/challenges');
        $request->setLaravelSession($this->app['session']->driver());
        $request->setUserResolver(fn () => $user);

        return $request;
    }

    public function test_shared_props_name_the_user_the_current_conversation_its_channel_and_bridge_url(): void
    {
        config(['toolmark.broadcaster' => ['key' => 'public-key', 'wsHost' => 'ws.example.test']]);
        $ada = $this->user();
        $request = $this->request($ada);
        $this->assertSame(
            ['userId' => $ada->id, 'conversationId' => null, 'channel' => null, 'postUrl' => null, 'broadcaster' => ['key' => 'public-key', 'wsHost' => 'ws.example.test']],
            Toolmark::sharedProps($request),
        );
        $chat = Toolmark::startConversation($ada, $request);
        $this->assertSame(
            ['userId' => $ada->id, 'conversationId' => $chat->id, 'channel' => "toolmark.{$ada->id}.{$chat->id}", 'postUrl' => "/toolmark/bridge/{$chat->id}", 'broadcaster' => ['key' => 'public-key', 'wsHost' => 'ws.example.test']],
            Toolmark::sharedProps($request),
        );
        $this->assertNull(Toolmark::sharedProps($this->request(null)), 'a guest gets no bridge');
    }

    public function test_the_middleware_shares_the_props_through_inertia(): void
    {
        require_once __DIR__.'/../Stand/Inertia.php';
        $ada = $this->user();
        $request = $this->request($ada);
        $chat = Toolmark::startConversation($ada, $request);
        $response = $this->app->make(ShareToolmarkProps::class)->handle($request, fn () => response('page'));
        $this->assertSame('page', $response->getContent());
        $this->assertSame($chat->id, (\Inertia\Inertia::$shared['toolmark'])()['conversationId']);
    }

    public function test_route_toolmark_places_the_routes_in_a_group_of_the_apps_and_the_props_follow(): void
    {
        \Illuminate\Support\Facades\Route::prefix('app')->middleware(['web', 'auth'])->group(fn () => \Illuminate\Support\Facades\Route::toolmark());
        $ada = $this->user();
        $request = $this->request($ada);
        $chat = Toolmark::startConversation($ada, $request);
        $this->assertSame("/app/toolmark/bridge/{$chat->id}", Toolmark::sharedProps($request)['postUrl']);
        $this->actingAs($ada)->withSession(['_token' => 't'])
            ->call('POST', "/app/toolmark/bridge/{$chat->id}", [], [], [], ['HTTP_X_CSRF_TOKEN' => 't'], json_encode(['protocol' => 1, 'type' => 'manifest', 'clientId' => 'p-1', 'rev' => 1, 'tools' => []]))
            ->assertNoContent();
        $this->assertSame('p-1', $chat->refresh()->active_client_id);
    }

    public function test_a_conversation_id_in_the_session_that_is_not_the_users_is_not_shared(): void
    {
        $ada = $this->user('ada');
        $bob = $this->user('bob');
        $bobs = Toolmark::startConversation($bob);
        $request = $this->request($ada);
        $request->session()->put(config('toolmark.session_key'), $bobs->id);
        $this->assertNull(Toolmark::sharedProps($request)['conversationId']);
    }

    public function test_only_the_owner_may_post_chat_messages_and_the_text_is_validated(): void
    {
        $ada = $this->user('ada');
        $bob = $this->user('bob');
        $chat = Toolmark::startConversation($ada);
        $post = fn ($user, array $body) => $this->actingAs($user)->withSession(['_token' => 't'])
            ->postJson("/toolmark/conversations/{$chat->id}/messages", $body, ['X-CSRF-TOKEN' => 't']);
        $post($bob, ['text' => 'hi'])->assertForbidden();
        // 400, as @toolmark/server answers an over-long chat message.
        $post($ada, ['text' => str_repeat('x', 4001)])->assertStatus(400)->assertExactJson(['error' => [
            'code' => 'message_too_long', 'message' => 'The message is 4001 characters long; the limit is 4000',
        ]]);
        // UTF-16 code units, as a page's maxlength counts: 2000 emoji are 4000 units.
        $post($ada, ['text' => str_repeat("\u{1F600}", 2001)])->assertStatus(400);
        config(['toolmark.limits.message_bytes' => 1000]);
        $post($ada, ['text' => str_repeat('x', 1001)])->assertStatus(413)->assertJsonPath('error.code', 'body_too_large');
        config(['toolmark.limits.message_bytes' => 65536]);
        $post($ada, [])->assertStatus(422);
        $this->assertSame(0, $chat->messages()->count());
    }

    public function test_a_user_with_the_configured_number_of_turns_queued_is_refused_429_too_many_turns(): void
    {
        \Illuminate\Support\Facades\Bus::fake(); // the turns stay queued
        $this->assertSame(8, config('toolmark.limits.turns_per_user'));
        config(['toolmark.limits.turns_per_user' => 2]);
        $ada = $this->user('ada');
        $bob = $this->user('bob');
        $first = Toolmark::startConversation($ada);
        $second = Toolmark::startConversation($ada);
        $bobs = Toolmark::startConversation($bob);
        $post = fn ($user, $chat) => $this->actingAs($user)->withSession(['_token' => 't'])
            ->postJson("/toolmark/conversations/{$chat->id}/messages", ['text' => 'hi'], ['X-CSRF-TOKEN' => 't']);
        $post($ada, $first)->assertStatus(202);
        $post($ada, $second)->assertStatus(202);
        // The cap counts the user's turns in all their conversations.
        $post($ada, $first)->assertStatus(429)->assertHeader('Retry-After', '5')->assertExactJson(['error' => [
            'code' => 'too_many_turns',
            'message' => 'Too many messages waiting for the agent: at most 2 per user; wait for its answers',
        ]]);
        $this->assertSame(1, $first->messages()->count(), 'the refused message is not stored');
        $post($bob, $bobs)->assertStatus(202); // another user is not affected
        // A turn that ended no longer counts.
        $first->messages()->update(['secret_text' => null]);
        $post($ada, $first)->assertStatus(202);
        // Nor does one that died without ending, after TURN_COUNTS_FOR_MINUTES.
        \Illuminate\Support\Carbon::setTestNow(now()->addMinutes(16));
        $post($ada, $first)->assertStatus(202);
        \Illuminate\Support\Carbon::setTestNow();
    }

    public function test_grant_and_page_gone_bodies_over_4096_bytes_are_refused(): void
    {
        $ada = $this->user('ada');
        $chat = Toolmark::startConversation($ada);
        $post = fn (string $url, array $body) => $this->actingAs($ada)->withSession(['_token' => 't'])
            ->postJson($url, $body, ['X-CSRF-TOKEN' => 't']);
        $post('/toolmark/grants', ['tool' => str_repeat('x', 5000)])->assertStatus(413)->assertJsonPath('error.code', 'body_too_large');
        $post("/toolmark/gone/{$chat->id}", ['clientId' => str_repeat('x', 5000)])->assertStatus(413)->assertJsonPath('error.code', 'body_too_large');
        $post("/toolmark/gone/{$chat->id}", ['clientId' => 'page-1'])->assertNoContent();
    }

    public function test_a_message_body_declared_over_the_limit_is_refused_before_it_is_read(): void
    {
        $ada = $this->user('ada');
        $chat = Toolmark::startConversation($ada);
        $this->actingAs($ada)->withSession(['_token' => 't'])
            ->call('POST', "/toolmark/conversations/{$chat->id}/messages", [], [], [], [
                'HTTP_X_CSRF_TOKEN' => 't', 'CONTENT_TYPE' => 'application/json', 'HTTP_ACCEPT' => 'application/json',
                'CONTENT_LENGTH' => '65537',
            ], json_encode(['text' => 'hi']))
            ->assertStatus(413)->assertJsonPath('error.code', 'body_too_large');
        $this->assertSame(0, $chat->messages()->count());
    }

    public function test_a_user_at_the_configured_number_of_conversations_is_refused_a_new_one(): void
    {
        $this->assertSame(1000, config('toolmark.limits.conversations_per_user'));
        config(['toolmark.limits.conversations_per_user' => 2]);
        $ada = $this->user('ada');
        $bob = $this->user('bob');
        $bobs = Toolmark::startConversation($bob);
        $first = Toolmark::startConversation($ada);
        $first->messages()->create(['role' => 'user', 'text' => 'hi']);
        $second = Toolmark::startConversation($ada);
        try {
            Toolmark::startConversation($ada);
            $this->fail('a third conversation was started');
        } catch (\Toolmark\Laravel\LimitExceeded $refused) {
            $this->assertSame('too_many_conversations', $refused->limit);
            $response = $refused->render();
            $this->assertSame(429, $response->getStatusCode());
            $this->assertFalse($response->headers->has('Retry-After'), 'waiting does not help');
            $this->assertSame(['error' => ['code' => 'too_many_conversations', 'message' => 'Too many conversations: at most 2 per user']], $response->getData(true));
        }
        // Nothing was created and nothing deleted.
        $this->assertSame([$first->id, $second->id], \Toolmark\Laravel\Models\Conversation::query()->where('user_id', $ada->id)->orderBy('id')->pluck('id')->all());
        $this->assertSame(1, $first->messages()->count());
        // Another user's conversations are not counted.
        $this->assertNotNull(Toolmark::startConversation($bob)->id);
        $this->assertNotNull($bobs->fresh());
    }

    public function test_a_limit_exceeded_thrown_in_a_request_is_answered_429_with_its_code(): void
    {
        config(['toolmark.limits.conversations_per_user' => 0]);
        $ada = $this->user('ada');
        \Illuminate\Support\Facades\Route::middleware('web')->get('/start', fn () => Toolmark::startConversation($ada));
        $this->get('/start')->assertStatus(429)->assertJsonPath('error.code', 'too_many_conversations');
    }
}
