<?php

namespace App\Toolmark;

use App\Events\ToolmarkMessage;
use App\Jobs\ExpireToolmarkCall;
use App\Models\Conversation;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Str;

final class ToolmarkRelay
{
    public function __construct(private readonly int $deadlineMs = 15000) {}

    /**
     * Sends a call or describe to the conversation's current page load. Returns the call id, or
     * null when no page is bound (answer the tool call with an error result then).
     *
     * @param array<string, mixed> $input
     */
    public function send(
        Conversation $conversation,
        string $toolCallId,
        string $kind,
        string $tool,
        array $input = [],
        ?int $rev = null,
    ): ?string {
        $clientId = $conversation->active_client_id;
        if ($clientId === null) {
            return null;
        }
        $id = (string) Str::uuid();
        DB::table('toolmark_calls')->insert([
            'id' => $id,
            'user_id' => $conversation->user_id,
            'conversation_id' => $conversation->id,
            'client_id' => $clientId,
            'kind' => $kind,
            'tool' => $tool,
            'tool_call_id' => $toolCallId,
            'deadline_at' => now()->addMilliseconds($this->deadlineMs),
            'state' => 'pending',
            'created_at' => now(),
            'updated_at' => now(),
        ]);
        $message = ['protocol' => 1, 'type' => $kind, 'clientId' => $clientId, 'id' => $id, 'tool' => $tool];
        if ($kind === 'call') {
            $message['input'] = (object) $input;
            if ($rev !== null) {
                $message['rev'] = $rev;
            }
        }
        ToolmarkMessage::dispatch((int) $conversation->user_id, (int) $conversation->id, $message);
        ExpireToolmarkCall::dispatch($id)->delay(now()->addMilliseconds($this->deadlineMs));

        return $id;
    }
}
