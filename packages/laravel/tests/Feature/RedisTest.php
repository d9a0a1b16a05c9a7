<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Redis;
use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Tests\TestCase;
use Toolmark\Laravel\Toolmark;

/**
 * The package on Redis (Debian's redis-server and php-redis): the deadline, agent-turn and follow-up
 * jobs on the Redis queue, and the page messages on Laravel's Redis broadcaster (what an Echo server
 * such as Soketi or laravel-echo-server reads). The test starts its own redis-server on a free port.
 */
final class RedisTest extends TestCase
{
    /** @var resource|null */
    private $server = null;

    private int $port;

    protected function setUp(): void
    {
        parent::setUp();
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        $this->port = (int) substr((string) strrchr((string) stream_socket_get_name($socket, false), ':'), 1);
        fclose($socket);
        $this->server = proc_open(
            ['redis-server', '--port', (string) $this->port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
            [['pipe', 'r'], ['file', '/dev/null', 'w'], ['file', '/dev/null', 'w']],
            $pipes,
        );
        for ($i = 0; $i < 300 && @fsockopen('127.0.0.1', $this->port) === false; $i++) {
            usleep(10000);
        }
        config([
            'database.redis.default.port' => $this->port,
            'queue.default' => 'redis',
            'broadcasting.default' => 'redis',
        ]);
        $this->app->forgetInstance('redis');
    }

    protected function tearDown(): void
    {
        if (is_resource($this->server)) {
            proc_terminate($this->server);
            proc_close($this->server);
        }
        parent::tearDown();
    }

    public function test_the_deadline_runs_as_a_delayed_job_on_the_redis_queue_and_the_turn_goes_on(): void
    {
        $this->app->instance(AgentModel::class, new class implements AgentModel {
            /** @var list<array<string, mixed>> */
            public array $seen = [];

            public function complete(string $system, array $messages, array $tools): array
            {
                $this->seen = $messages;

                return ['text' => 'The page did not answer.', 'tool_calls' => []];
            }
        });
        $ada = $this->user();
        $chat = $this->conversation($ada);
        $id = (string) $this->app->make(Toolmark::class)->send($chat, 'tc_1', 'call', 'challenges.list');
        $this->assertSame(1, Redis::connection()->zcard('queues:default:delayed'), 'the deadline waits in Redis');

        $this->assertSame(0, $this->artisan('queue:work', ['connection' => 'redis', '--stop-when-empty' => true, '--sleep' => 0]));
        $this->assertSame('pending', DB::table('toolmark_calls')->value('state'), 'not before its deadline');

        Carbon::setTestNow(now()->addMilliseconds((int) config('toolmark.deadline_ms') + 1000));
        try {
            $this->assertSame(0, $this->artisan('queue:work', ['connection' => 'redis', '--stop-when-empty' => true, '--sleep' => 0]));
        } finally {
            Carbon::setTestNow();
        }
        $this->assertSame('timed_out', DB::table('toolmark_calls')->where('id', $id)->value('state'));
        $this->assertSame('The page did not answer.', $chat->messages()->where('role', 'assistant')->latest('id')->value('text'));
        $this->assertSame(
            '{"status":"error","message":"Timed out: the page did not answer in time"}',
            $this->app->make(AgentModel::class)->seen[0]['content'] ?? null,
        );
    }

    public function test_page_messages_are_published_on_the_private_channel_through_the_redis_broadcaster(): void
    {
        $ada = $this->user();
        $chat = $this->conversation($ada);
        $channel = "private-toolmark.{$ada->id}.{$chat->id}";
        $out = tempnam(sys_get_temp_dir(), 'toolmark-sub-');
        $subscriber = proc_open(
            ['redis-cli', '-p', (string) $this->port, '--no-raw', 'SUBSCRIBE', $channel],
            [['pipe', 'r'], ['file', $out, 'w'], ['file', '/dev/null', 'w']],
            $pipes,
        );
        try {
            for ($i = 0; $i < 300 && (Redis::connection()->pubsub('numsub', [$channel])[$channel] ?? 0) < 1; $i++) {
                usleep(10000);
            }
            $id = (string) $this->app->make(Toolmark::class)->send($chat, 'tc_1', 'call', 'challenges.create', ['title' => 'Chess']);
            for ($i = 0; $i < 300 && ! str_contains((string) file_get_contents($out), $id); $i++) {
                usleep(10000);
            }
        } finally {
            proc_terminate($subscriber);
            proc_close($subscriber);
        }
        preg_match('/"(\{\\\\"event.*\})"/', (string) file_get_contents($out), $m);
        unlink($out);
        $payload = json_decode(stripcslashes($m[1] ?? 'null'), true);
        $this->assertSame('toolmark.message', $payload['event'] ?? null);
        $this->assertSame(
            ['protocol' => 1, 'type' => 'call', 'clientId' => 'page-1', 'id' => $id, 'tool' => 'challenges.create', 'input' => ['title' => 'Chess']],
            $payload['data']['message'],
        );
    }
}
