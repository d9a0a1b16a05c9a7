<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Events\ToolmarkChat;
use Toolmark\Laravel\Tests\TestCase;

/** Each new chat line goes to the page as `.toolmark.chat` once its transaction commits (`toolmark.chat_events`). */
final class ChatEventsTest extends TestCase
{
    /** @return list<array{channels: list<string>, payload: array<string, mixed>}> */
    private function chatEvents(): array
    {
        return array_values(array_filter($this->broadcasts->sent, fn (array $s): bool => $s['event'] === 'toolmark.chat'));
    }

    public function test_a_committed_line_is_broadcast_with_its_masked_text_and_a_rolled_back_one_is_not(): void
    {
        $ada = $this->user();
        $chat = $this->conversation($ada, null);
        $line = $chat->messages()->create(['role' => 'assistant', 'text' => 'Hello']);
        DB::transaction(function () use ($chat): void {
            $chat->messages()->create(['role' => 'tool', 'text' => 'page_call x → ok']);
            $this->assertCount(1, $this->chatEvents(), 'not before the commit');
        });
        try {
            DB::transaction(function () use ($chat): void {
                $chat->messages()->create(['role' => 'assistant', 'text' => 'never shown']);
                throw new \RuntimeException('rolled back');
            });
        } catch (\RuntimeException) {
        }
        $chat->messages()->create(['role' => 'assistant', 'text' => '']); // nothing to show
        $events = $this->chatEvents();
        $this->assertCount(2, $events);
        $this->assertSame(["private-toolmark.{$ada->id}.{$chat->id}"], $events[0]['channels']);
        $this->assertSame(['id' => $line->id, 'role' => 'assistant', 'text' => 'Hello'], $events[0]['payload']['message']);
        $this->assertSame('page_call x → ok', $events[1]['payload']['message']['text']);
    }

    public function test_a_line_too_large_for_one_event_comes_without_its_text(): void
    {
        $ada = $this->user();
        $chat = $this->conversation($ada, null);
        $line = $chat->messages()->create(['role' => 'assistant', 'text' => str_repeat('é', ToolmarkChat::MAX_TEXT_BYTES)]);
        $this->assertSame(['id' => $line->id, 'role' => 'assistant'], $this->chatEvents()[0]['payload']['message']);
    }
}
